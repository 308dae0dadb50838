import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routeKey, routeOf } from '../../../src/core/common/index.ts';

test('routeOf folds ids and drops the query', () => {
  assert.equal(routeOf('/orders/123?x=1'), '/orders/{n}');
  assert.equal(routeOf('/users/3f2b1c9e-8a4d-4b7e-9c1f-0a2b3c4d5e6f/cart'), '/users/{uuid}/cart');
  assert.equal(routeOf('/items/507f1f77bcf86cd799439011'), '/items/{id}');
  assert.equal(routeOf('/orders/pending-shipments'), '/orders/pending-shipments');
  assert.equal(routeOf('/'), '/');
  assert.equal(routeOf(''), '/');
  assert.equal(routeOf('/a/%E0%A4%A'), '/a/%E0%A4%A');
});

test('routeOf keeps the framework pattern', () => {
  assert.equal(routeOf('/orders/123', '/orders/:id'), '/orders/:id');
});

test('10,000 distinct URLs of one handler are one route', () => {
  const routes = new Set<string>();
  for (let i = 0; i < 10_000; i++) routes.add(routeOf(`/orders/${i}?page=${i % 7}`));
  assert.deepEqual([...routes], ['/orders/{n}']);
});

test('routeKey', () => {
  assert.equal(routeKey('get', '/orders/{n}'), 'GET /orders/{n}');
});
