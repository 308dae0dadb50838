"use strict";
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);
var hot_exports = {};
__export(hot_exports, {
  buildCatalog: () => buildCatalog,
  checksum: () => checksum,
  doWork: () => doWork
});
module.exports = __toCommonJS(hot_exports);
const SAMPLE_SIZE = 1e6;
const ROUNDS = 24;
function nextSeed(seed) {
  return Math.imul(seed, 1103515245) + 12345 >>> 0;
}
function makeSample(size) {
  const values = new Array(size);
  let seed = 42;
  for (let i = 0; i < size; i++) {
    seed = nextSeed(seed);
    values[i] = seed & 65535;
  }
  return values;
}
const sample = makeSample(SAMPLE_SIZE);
function checksum(values, rounds) {
  let acc = 2166136261;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < values.length; i++) {
      acc = Math.imul(acc ^ values[i], 16777619) >>> 0;
    }
  }
  return acc;
}
function doWork() {
  return { checksum: checksum(sample, ROUNDS), items: sample.length * ROUNDS };
}
function buildCatalog(count) {
  const items = [];
  let seed = 7;
  for (let id = 0; id < count; id++) {
    seed = nextSeed(seed);
    items.push({
      id,
      sku: `SKU-${(seed % 1e6).toString().padStart(6, "0")}`,
      title: `Item ${id} of the test catalog`,
      price: seed % 1e5 / 100,
      tags: ["test", `group-${seed % 17}`, `shelf-${id % 23}`],
      inStock: (seed & 1) === 1
    });
  }
  return items;
}
// Annotate the CommonJS export names for ESM import in node:
0 && (module.exports = {
  buildCatalog,
  checksum,
  doWork
});
//# sourceMappingURL=hot.js.map
