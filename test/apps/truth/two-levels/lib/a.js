// Requires two levels deep: server → a → b. a's two lines call b with 2:1 work.
const b = require('./b');

exports.run = () => {
  const x = b.heavy(20000); // truth total 2
  const y = b.heavy(10000); // truth total 1
  return x[0] ^ y[0];
};
