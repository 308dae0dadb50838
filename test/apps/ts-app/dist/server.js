"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
var http = __toESM(require("node:http"));
var import_hot = require("./hot");
const PORT = Number(process.env.PORT) || 3e3;
const catalog = (0, import_hot.buildCatalog)(15e3);
function sendJson(res, body) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(body);
}
const routes = {
  "/work": (res) => sendJson(res, JSON.stringify((0, import_hot.doWork)())),
  "/json": (res) => sendJson(res, JSON.stringify(catalog)),
  "/ok": (res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  }
};
const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url ?? "/", "http://localhost");
  const handler = routes[pathname];
  if (req.method !== "GET" || !handler) {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found\n");
    return;
  }
  handler(res);
});
server.listen(PORT, () => {
  console.log(`ts-app listening on http://127.0.0.1:${PORT}`);
});
//# sourceMappingURL=server.js.map
