'use strict';
// Stays alive but never opens a server: the profiler must give up after its listen timeout.
setInterval(() => {}, 1000);
console.log('never-listens: up, and never listening');
