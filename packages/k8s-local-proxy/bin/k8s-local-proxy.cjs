#!/usr/bin/env node
// The CLI is built to one file, dist/cli.cjs; this stub exists so the bin is linked before the
// first build. Node 22+ keeps the compiled CLI between runs when the compile cache is on, which
// shortens every later start; it must be switched on before the CLI is loaded.
require('node:module').enableCompileCache?.();
require('../dist/cli.cjs');
