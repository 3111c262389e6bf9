// BENCH_BASELINE_GATEWAY=<main.js of another gateway build>: that build runs beside the stack's
// gateway, in front of the same services with the same settings, so that the read path measures
// both builds in the same run (e.g. before and after a change of the gateway).
const path = require('node:path');
const { spawn } = require('node:child_process');
const { stopProcess, waitUntilReady } = require('../../tools/stack/stack.cjs');

/** Ports of the baseline gateway: beside the stack's own, within the layout's range. */
const PORT_SHIFT = 50;

async function startBaselineGateway(layout, { extraEnv = {}, nodeArgs = [], output = process.stdout } = {}) {
  const main = process.env.BENCH_BASELINE_GATEWAY;
  if (!main) return undefined;
  const port = Number(layout.envs.gateway.HTTP_PORT) + PORT_SHIFT;
  const env = { ...process.env, ...extraEnv, ...layout.envs.gateway, HTTP_PORT: String(port), METRICS_PORT: String(Number(layout.envs.gateway.METRICS_PORT) + PORT_SHIFT) };
  const child = spawn(process.execPath, [...nodeArgs, path.resolve(main)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.outputTail = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      output.write(`[baseline] ${chunk}`);
      child.outputTail = [...child.outputTail, String(chunk)].slice(-20);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(url, child);
  return { url, main, stop: () => stopProcess(child) };
}

module.exports = { startBaselineGateway };
