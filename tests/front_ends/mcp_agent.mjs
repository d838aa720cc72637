// The MCP agent of one_store_test.py: the official MCP TypeScript SDK client
// driving `vexfs mcp` on the shared store. It finds what the Python agent wrote,
// writes its own note, snapshots, changes the note, diffs and restores.
//   node mcp_agent.mjs STORE    (VEXFS_BIN, MCP_CLIENT_DIR as for tests/mcp)
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [store] = process.argv.slice(2);
const VEXFS = process.env.VEXFS_BIN;
const CLIENT_DIR = process.env.MCP_CLIENT_DIR;
assert.ok(store && VEXFS && CLIENT_DIR, 'usage: node mcp_agent.mjs STORE, with VEXFS_BIN and MCP_CLIENT_DIR set');
const sdk = (path) =>
  import(pathToFileURL(join(CLIENT_DIR, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const client = new Client({ name: 'vexfs-one-store', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: VEXFS, args: ['--store', store, 'mcp'] }));
async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

const found = await call('search', { query: 'aardvark' });
assert.deepEqual(found.hits.map((h) => h.path), ['notes/python.md']);
await call('write_file', { path: 'notes/mcp.md', content: 'the mcp agent remembers the bandicoot\n' });
await call('snapshot_create', { name: 'mcp-snap', message: 'written over MCP' });
await call('write_file', { path: 'notes/mcp.md', content: 'forgotten\n' });
const diff = await call('diff', { from: 'mcp-snap' });
assert.deepEqual(diff.changes.map((c) => [c.change, c.path]), [['modified', 'notes/mcp.md']]);
await call('restore', { snapshot: 'mcp-snap' });
assert.equal((await call('read_file', { path: 'notes/mcp.md' })).content, 'the mcp agent remembers the bandicoot\n');
await client.close();
console.log('mcp_agent: wrote, searched, snapshotted, diffed and restored');
