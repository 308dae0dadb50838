'use strict';

// login-api: a small Express app with a classic performance bug.
// Every password check runs pbkdf2 *synchronously*, so while one request is
// hashing (~50 ms of CPU) the event loop cannot serve anybody else.
// Start with HASH_MODE=async to use the non-blocking version instead.

const crypto = require('node:crypto');
const util = require('node:util');
const express = require('express');
const jwt = require('jsonwebtoken');

const PORT = Number(process.env.PORT) || 3000;
const HASH_MODE = process.env.HASH_MODE === 'async' ? 'async' : 'sync';
// Demo only: a real service would require a secret from its environment.
const SECRET = process.env.JWT_SECRET || 'hotline-demo-secret';

const pbkdf2 = util.promisify(crypto.pbkdf2);

// In-memory user store: name -> { salt, hash }. Lost on restart, by design.
const users = new Map();

function makeUser(password) {
  const salt = crypto.randomBytes(128).toString('base64');
  return { salt, hash: crypto.pbkdf2Sync(password, salt, 10000, 512, 'sha512') };
}

async function makeUserAsync(password) {
  const salt = crypto.randomBytes(128).toString('base64');
  return { salt, hash: await pbkdf2(password, salt, 10000, 512, 'sha512') };
}

// The bottleneck: pbkdf2Sync holds the event loop for the whole hash.
function checkPassword(user, password) {
  const hash = crypto.pbkdf2Sync(password, user.salt, 10000, 512, 'sha512');
  return crypto.timingSafeEqual(hash, user.hash);
}

// The fix: same parameters, but the hash runs on the libuv thread pool.
async function checkPasswordAsync(user, password) {
  const hash = await pbkdf2(password, user.salt, 10000, 512, 'sha512');
  return crypto.timingSafeEqual(hash, user.hash);
}

// Routes call these, so switching HASH_MODE changes nothing else.
const verify = HASH_MODE === 'async' ? checkPasswordAsync : checkPassword;
const create = HASH_MODE === 'async' ? makeUserAsync : makeUser;

users.set('alice@example.com', makeUser('correct horse battery staple'));

const isText = (v) => typeof v === 'string' && v.length > 0;
// Letters, digits and . _ @ + - only, so an e-mail address is a valid name.
const isName = (v) => isText(v) && /^[\w.@+-]{1,64}$/.test(v);

const app = express();
app.use(express.json());

app.get('/health', (req, res) => {
  res.type('text/plain').send('ok');
});

app.post('/login', async (req, res) => {
  const { email, password } = req.body || {};
  if (!isText(email) || !isText(password)) {
    return res.status(400).json({ error: 'email and password are required' });
  }
  const user = users.get(email);
  // Unknown users get 401 too, so the response does not reveal who exists.
  if (!user || !(await verify(user, password))) {
    return res.status(401).json({ error: 'invalid credentials' });
  }
  const token = jwt.sign({ sub: email }, SECRET, { expiresIn: '1h' });
  res.json({ token });
});

// The two GET routes from the Node.js profiling guide, kept for `ab`-style tests.
app.get('/newUser', async (req, res) => {
  const { username, password } = req.query;
  if (!isName(username) || !isText(password)) return res.sendStatus(400);
  if (users.has(username)) return res.sendStatus(409);
  const user = await create(password);
  // Check again: another request may have created the name while we hashed.
  if (users.has(username)) return res.sendStatus(409);
  users.set(username, user);
  res.sendStatus(200);
});

app.get('/auth', async (req, res) => {
  const { username, password } = req.query;
  if (!isName(username) || !isText(password)) return res.sendStatus(400);
  const user = users.get(username);
  if (!user || !(await verify(user, password))) return res.sendStatus(401);
  res.sendStatus(200);
});

// Malformed JSON bodies are the client's fault: answer 400 without a stack trace.
app.use((err, req, res, next) => {
  if (err.type === 'entity.parse.failed') {
    return res.status(400).json({ error: 'invalid JSON body' });
  }
  next(err);
});

// Express 5 passes listen errors (e.g. EADDRINUSE) to this callback.
app.listen(PORT, (err) => {
  if (err) {
    console.error(`login-api could not listen on port ${PORT}: ${err.message}`);
    process.exit(1);
  }
  console.log(`login-api listening on http://127.0.0.1:${PORT} (hash mode: ${HASH_MODE})`);
});
