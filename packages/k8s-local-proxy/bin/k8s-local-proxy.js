#!/usr/bin/env node
// The CLI is built to dist/; this stub exists so the bin is linked before the first build.
import '../dist/cli.js';
