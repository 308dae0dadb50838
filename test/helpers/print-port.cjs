'use strict';
// Preload (`node --require`) for integration tests: prints the PORT the profiler gave the app,
// so a test can show that an app which ignores PORT was still found on its own port.
process.stderr.write(`hotline-test PORT=${process.env.PORT}\n`);
