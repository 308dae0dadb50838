// A child_process.fork app: fork-app's parent (it serves HTTP and hands each request to one of
// two forked children in turn), with this app's work.js as the children.
const path = require('node:path');
const { serve } = require('../fork-app/server.js');

serve(path.join(__dirname, 'work.js'));
