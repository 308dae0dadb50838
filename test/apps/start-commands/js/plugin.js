// A Fastify plugin, as `fastify start` loads one: the route calls the known answer.
const { check } = require('./check.js');

module.exports = async function routes(app, _opts) {
  app.get('/', async () => ({ value: check('pw') }));
};
