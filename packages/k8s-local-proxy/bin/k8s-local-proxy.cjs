#!/usr/bin/env node
// The CLI is built to one file, dist/cli.cjs; this stub exists so the bin is linked before the
// first build. Node 22+ keeps the compiled CLI between runs when the compile cache is on, which
// shortens every later start; it must be switched on before the CLI is loaded.
require('node:module').enableCompileCache?.();
require('../dist/cli.cjs');
// V8 doubles the young generation whenever a scavenge finds it too small: after 5 000 relayed
// requests it had grown from 2 to 8 MiB, all of it resident, for a relay whose per-request
// objects die young. A growth factor of 1 keeps it at the size it has. V8 reads this flag at
// each resize (--max-semi-space-size is read once, when the heap is set up: too late here). It
// is set once start-up is done, not before: changing any V8 flag makes V8 refuse the code cache
// Node's own modules are compiled from, about 10 ms more to start. bench/README.md has the
// measures: 5-7 MiB less resident memory after 5 000 requests, CPU per request within noise.
setImmediate(() => require('node:v8').setFlagsFromString('--semi-space-growth-factor=1'));
