// redact.ts: secrets a user puts into a load test never reach report.json in clear.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  REDACTED,
  redactBody,
  redactCommand,
  redactEnv,
  redactHeaders,
  redactUrl,
} from '../../../src/core/common/redact.ts';

const ENCODED = encodeURIComponent(REDACTED);
const PASSWORD = 'correct horse battery staple';

describe('redactHeaders', () => {
  test('Authorization, cookies and API keys are replaced, whatever their case; others kept; input untouched', () => {
    const input = {
      Authorization: 'Bearer eyJhbGciOi',
      'content-type': 'application/json',
      'X-Api-Key': 'k-123',
      cookie: 'sid=1',
      'Proxy-Authorization': 'Basic x',
      accept: '*/*',
    };
    const copy = { ...input };
    assert.deepEqual(redactHeaders(input), {
      Authorization: REDACTED,
      'content-type': 'application/json',
      'X-Api-Key': REDACTED,
      cookie: REDACTED,
      'Proxy-Authorization': REDACTED,
      accept: '*/*',
    });
    assert.deepEqual(input, copy);
  });
});

describe('redactBody', () => {
  test('JSON: password values replaced at any depth, the shape and other values kept', () => {
    const body = JSON.stringify({
      email: 'alice@example.com',
      password: PASSWORD,
      nested: { apiKey: 'k', list: [{ token: 't', n: 1 }] },
    });
    const out = redactBody(body)!;
    assert.ok(!out.includes(PASSWORD));
    assert.deepEqual(JSON.parse(out), {
      email: 'alice@example.com',
      password: REDACTED,
      nested: { apiKey: REDACTED, list: [{ token: REDACTED, n: 1 }] },
    });
  });

  test('the login-api demo body', () => {
    const out = redactBody(`{"email":"alice@example.com","password":"${PASSWORD}"}`)!;
    assert.equal(out, `{"email":"alice@example.com","password":"${REDACTED}"}`);
  });

  test('form bodies: the secret pairs replaced', () => {
    assert.equal(
      redactBody(`username=alice&password=${encodeURIComponent(PASSWORD)}`),
      `username=alice&password=${ENCODED}`,
    );
    assert.equal(redactBody('a=1&client_secret=s3&b='), `a=1&client_secret=${ENCODED}&b=`);
  });

  test('anything else keeps only its size; no body stays undefined', () => {
    assert.equal(
      redactBody(`plain text with ${PASSWORD}`),
      `«${Buffer.byteLength(`plain text with ${PASSWORD}`)} bytes»`,
    );
    assert.equal(redactBody('é'), '«2 bytes»');
    assert.equal(redactBody(undefined), undefined);
  });
});

describe('redactUrl', () => {
  test('query string: password=… and other secret-looking names replaced, the rest kept', () => {
    assert.equal(redactUrl('/auth?username=alice&password=hunter2'), `/auth?username=alice&password=${ENCODED}`);
    assert.equal(
      redactUrl('http://127.0.0.1:3000/newUser?username=bob&password=x&token=y'),
      `http://127.0.0.1:3000/newUser?username=bob&password=${ENCODED}&token=${ENCODED}`,
    );
  });

  test('an encoded parameter name is recognised', () => {
    assert.equal(redactUrl('/a?pass%77ord=x'), `/a?pass%77ord=${ENCODED}`);
  });

  test('no query, or pairs without a value, are left alone', () => {
    assert.equal(redactUrl('/login'), '/login');
    assert.equal(redactUrl('/a?debug&password'), '/a?debug&password');
  });

  test('a password in the URL’s user-info (http://user:pass@host/) is replaced', {}, () => {
    assert.ok(!redactUrl('http://alice:hunter2@127.0.0.1:3000/login').includes('hunter2'));
  });
});

describe('redactEnv', () => {
  test('secret-looking variables replaced, the rest kept', () => {
    assert.deepEqual(
      redactEnv({ JWT_SECRET: 's', DATABASE_PASSWORD: 'p', PORT: '3000', HASH_MODE: 'async', AWS_SESSION_TOKEN: 't' }),
      {
        JWT_SECRET: REDACTED,
        DATABASE_PASSWORD: REDACTED,
        PORT: '3000',
        HASH_MODE: 'async',
        AWS_SESSION_TOKEN: REDACTED,
      },
    );
  });
});

test('redactCommand: secret-looking NAME=value words and --name=value flags of a start command', () => {
  assert.equal(
    redactCommand(`API_KEY=abc DEBUG=1 node x.js --token='x y' --port=3000`),
    `API_KEY=${REDACTED} DEBUG=1 node x.js --token=${REDACTED} --port=3000`,
  );
  assert.equal(redactCommand('tsx watch src/server.ts'), 'tsx watch src/server.ts');
});
