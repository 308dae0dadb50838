const crypto = require('node:crypto');

exports.heavy = (iterations) => crypto.pbkdf2Sync('pw', 'salt', iterations, 64, 'sha512');
