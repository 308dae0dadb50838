'use strict';
// Runs to its end without opening a server: node exits with code 0 straight away.
console.log('exits-at-once: nothing to serve');
