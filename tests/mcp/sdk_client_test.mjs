// `vexfs mcp` driven by the official MCP TypeScript SDK client over stdio: the
// lifecycle, every tool (good and bad arguments, a destructive restore), the
// resources, a read-only server, raw protocol errors, and two clients writing to
// one store at once. Run by ctest (tests/mcp/CMakeLists.txt) as
//   node --test tests/mcp/sdk_client_test.mjs
// with VEXFS_BIN (the vexfs binary) and MCP_CLIENT_DIR (.deps/mcp-client).
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const VEXFS = process.env.VEXFS_BIN;
const CLIENT_DIR = process.env.MCP_CLIENT_DIR;
assert.ok(VEXFS, 'VEXFS_BIN must name the vexfs binary');
assert.ok(CLIENT_DIR, 'MCP_CLIENT_DIR must name the installed MCP client (.deps/mcp-client)');

const sdk = (path) =>
  import(pathToFileURL(join(CLIENT_DIR, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const work = mkdtempSync(join(tmpdir(), 'vexfs-mcp-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

// A new store whose index embeds with `hash` (no vector file to load per process).
function newStore(name) {
  const path = join(work, name);
  execFileSync(VEXFS, ['init', path]);
  execFileSync(VEXFS, ['--store', path, 'index', 'use', 'hash']);
  return path;
}

async function connect(store, extra = []) {
  const transport = new StdioClientTransport({
    command: VEXFS,
    args: ['--store', store, 'mcp', ...extra],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vexfs-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// A tool call that must succeed: its structured result.
async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name} failed: ${JSON.stringify(result.content)}`);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

// A tool call that must fail as a tool error whose text matches `pattern`.
async function callFails(client, name, args, pattern) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, true, `${name} should have failed: ${JSON.stringify(result)}`);
  assert.match(result.content[0].text, pattern);
}

describe('one client through every tool', () => {
  let store;
  let client;
  before(async () => {
    store = newStore('main');
    client = await connect(store);
  });
  after(async () => client.close());

  test('initialize negotiates the current protocol and names the server', () => {
    assert.equal(client.getServerVersion().name, 'vexfs');
    const caps = client.getServerCapabilities();
    assert.ok(caps.tools);
    assert.ok(caps.resources);
    assert.match(client.getInstructions(), /memory/);
  });

  test('tools/list describes every tool with a schema and hints', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      'branch_create', 'branch_list', 'delete', 'diff', 'edit_file', 'graph_action', 'graph_add',
      'graph_diff', 'graph_invalidate', 'graph_link', 'graph_neighbors', 'graph_search', 'list_directory', 'log',
      'make_directory', 'move', 'pending_actions', 'read_file', 'restore', 'search', 'snapshot_create',
      'snapshot_list', 'stat', 'write_file',
    ]);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.description.length > 30, tool.name);
      assert.equal(typeof tool.annotations.readOnlyHint, 'boolean', tool.name);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.equal(byName.restore.annotations.destructiveHint, true);
    assert.equal(byName.search.annotations.readOnlyHint, true);
    assert.deepEqual(byName.read_file.inputSchema.required, ['path']);
    assert.equal(byName.graph_neighbors.annotations.readOnlyHint, true);
    assert.equal(byName.graph_search.annotations.readOnlyHint, true);
    assert.deepEqual(byName.graph_search.inputSchema.required, ['query']);
    assert.equal(byName.pending_actions.annotations.readOnlyHint, true);
    assert.equal(byName.graph_link.annotations.idempotentHint, true);
    assert.equal(byName.graph_add.annotations.readOnlyHint, false);
    assert.equal(byName.graph_add.annotations.destructiveHint, false);
  });

  test('the memory graph: add, link, neighbours, actions, diff across snapshots', async () => {
    const added = await call(client, 'graph_add', {
      nodes: [
        { kind: 'fact', text: 'the standup is at 9', key: 'standup', valid_from: '2026-01-01' },
        { kind: 'entity', text: 'Team Blue' },
        { kind: 'pending_action', text: 'email the team', key: 'email-1' },
      ],
      links: [{ from: '#0', kind: 'mentions', to: 'entity:team blue' }],
    });
    assert.equal(added.nodes.length, 3);
    assert.equal(added.edges.length, 1);
    const again = await call(client, 'graph_add', { nodes: [{ kind: 'entity', text: 'TEAM  blue' }] });
    assert.equal(again.records_changed, 0);
    assert.equal(again.nodes[0], added.nodes[1]);
    await call(client, 'snapshot_create', { name: 'g1' });

    const newer = await call(client, 'graph_add', {
      nodes: [{ kind: 'fact', text: 'the standup is at 10', key: 'standup-2', valid_from: '2026-06-01' }],
      links: [{ from: '#0', kind: 'supersedes', to: 'key:standup' }],
    });
    assert.equal(newer.nodes.length, 1);
    const done = await call(client, 'graph_action', { id: 'key:email-1', state: 'done' });
    assert.equal(done.action, 'done');
    await callFails(client, 'graph_action', { id: 'key:email-1', state: 'started' }, /must not run again/);
    await callFails(client, 'graph_link', { from: 'key:standup', kind: 'mentions', to: 'key:missing' }, /does not exist/);
    await callFails(client, 'graph_add', { nodes: [{ kind: 'Bad Kind' }] }, /kind/);

    const hood = await call(client, 'graph_neighbors', { id: 'entity:Team Blue', depth: 2 });
    // The superseded fact is no longer valid, so the walk stops at the entity.
    assert.deepEqual(hood.nodes.map((n) => n.text), ['Team Blue']);
    const all = await call(client, 'graph_neighbors', { id: 'entity:Team Blue', depth: 2, all: true });
    assert.equal(all.nodes.length, 3);
    const open = await call(client, 'pending_actions', { state: 'planned' });
    assert.equal(open.actions.length, 0);
    const finished = await call(client, 'pending_actions', { state: 'done' });
    assert.equal(finished.actions[0].key, 'email-1');

    const diff = await call(client, 'graph_diff', { from: 'g1' });
    const kinds = diff.changes.map((c) => c.change).sort();
    assert.deepEqual(kinds, ['action', 'added', 'added', 'invalidated', 'superseded']);
    assert.equal(diff.truncated, false);

    // Search: the superseded fact only when asked; as of the snapshot it was current.
    const found = await call(client, 'graph_search', { query: 'standup', kinds: ['fact'] });
    assert.equal(found.hits.length, 1);
    assert.equal(found.hits[0].node, newer.nodes[0]);
    assert.equal(found.hits[0].path, undefined);
    assert.match(found.hits[0].snippet, /standup is at 10/);
    const asked = await call(client, 'graph_search', { query: 'standup', kinds: ['fact'], all: true });
    assert.deepEqual(asked.hits.map((h) => h.node).sort(), [added.nodes[0], newer.nodes[0]].sort());
    const then = await call(client, 'graph_search', { query: 'standup', at: 'g1' });
    assert.deepEqual(then.hits.map((h) => h.node), [added.nodes[0]]);
    // One list of files and nodes.
    await call(client, 'write_file', { path: 'notes/standup.md', content: 'standup notes: the standup moved\n' });
    const both = await call(client, 'graph_search', { query: 'standup', files: true });
    assert.ok(both.hits.some((h) => h.path === 'notes/standup.md'));
    assert.ok(both.hits.some((h) => h.node === newer.nodes[0]));
    await callFails(client, 'graph_search', { query: 'standup', mode: 'sideways' }, /mode/);
  });

  test('files: write, read in ranges, stat, list, mkdir, move, delete', async () => {
    const written = await call(client, 'write_file', { path: 'notes/plan.md', content: 'sail at dawn\n' });
    assert.deepEqual(written, { path: 'notes/plan.md', size: 13, created: true });
    assert.equal((await call(client, 'write_file', { path: 'notes/plan.md', content: 'sail at dawn, with the tide\n' })).created, false);
    const whole = await call(client, 'read_file', { path: 'notes/plan.md' });
    assert.equal(whole.content, 'sail at dawn, with the tide\n');
    assert.equal(whole.encoding, 'utf8');
    assert.equal(whole.truncated, false);
    const part = await call(client, 'read_file', { path: 'notes/plan.md', offset: 5, length: 2 });
    assert.deepEqual([part.content, part.truncated, part.next_offset], ['at', true, 7]);
    // Bytes that are not UTF-8 travel as base64 both ways.
    const bytes = Buffer.from([0, 255, 1, 254, 10]);
    await call(client, 'write_file', { path: 'bin/blob', content: bytes.toString('base64'), encoding: 'base64' });
    const blob = await call(client, 'read_file', { path: 'bin/blob' });
    assert.equal(blob.encoding, 'base64');
    assert.deepEqual(Buffer.from(blob.content, 'base64'), bytes);
    // A multi-byte character cut by a range is left for the next read.
    await call(client, 'write_file', { path: 'utf.txt', content: 'aé' });
    const cut = await call(client, 'read_file', { path: 'utf.txt', length: 2 });
    assert.deepEqual([cut.content, cut.next_offset], ['a', 1]);

    const stat = await call(client, 'stat', { path: 'notes/plan.md' });
    assert.equal(stat.type, 'file');
    assert.equal(stat.size, 28);
    await call(client, 'make_directory', { path: 'a/b/c' });
    const listed = await call(client, 'list_directory', { recursive: true });
    const paths = listed.entries.map((e) => e.path);
    for (const p of ['notes', 'notes/plan.md', 'bin/blob', 'a/b/c']) assert.ok(paths.includes(p), p);
    assert.equal(listed.truncated, false);

    assert.deepEqual(await call(client, 'move', { from: 'notes/plan.md', to: 'a/plan.md' }),
      { from: 'notes/plan.md', to: 'a/plan.md' });
    await callFails(client, 'read_file', { path: 'notes/plan.md' }, /not found/i);
    // Into an existing directory: the reply names where the file is now.
    await call(client, 'write_file', { path: 'loose.md', content: 'l' });
    assert.deepEqual(await call(client, 'move', { from: 'loose.md', to: '/a/b/' }),
      { from: 'loose.md', to: 'a/b/loose.md' });
    assert.equal((await call(client, 'read_file', { path: 'a/b/loose.md' })).content, 'l');
    await call(client, 'write_file', { path: 'a/other.md', content: 'x' });
    await callFails(client, 'move', { from: 'a/other.md', to: 'a/plan.md' }, /exists/i);
    await call(client, 'move', { from: 'a/other.md', to: 'a/plan.md', overwrite: true });
    assert.equal((await call(client, 'read_file', { path: 'a/plan.md' })).content, 'x');
    await callFails(client, 'delete', { path: 'a' }, /directory/i);
    await call(client, 'delete', { path: 'a', recursive: true });
    await callFails(client, 'stat', { path: 'a' }, /not found/i);
  });

  test('edit_file replaces exact text, previews a diff, and refuses ambiguity', async () => {
    await call(client, 'write_file', { path: 'todo.md', content: 'one\ntwo\nthree\ntwo\n' });
    await callFails(client, 'edit_file', { path: 'todo.md', old_text: 'two', new_text: '2' }, /occurs 2 times/);
    await callFails(client, 'edit_file', { path: 'todo.md', old_text: 'four', new_text: '4' }, /occurs 0 times/);
    const preview = await call(client, 'edit_file', { path: 'todo.md', old_text: 'three', new_text: '3', dry_run: true });
    assert.match(preview.diff, /^--- a\/todo\.md\n\+\+\+ b\/todo\.md\n@@/);
    assert.match(preview.diff, /\n-three\n\+3\n/);
    assert.equal((await call(client, 'read_file', { path: 'todo.md' })).content, 'one\ntwo\nthree\ntwo\n');
    const done = await call(client, 'edit_file', { path: 'todo.md', old_text: 'two', new_text: '2', expected_replacements: 2 });
    assert.equal(done.replacements, 2);
    assert.equal((await call(client, 'read_file', { path: 'todo.md' })).content, 'one\n2\nthree\n2\n');
  });

  test('bad arguments are tool errors that name the problem, and the server goes on', async () => {
    await callFails(client, 'read_file', {}, /argument 'path' is required/);
    await callFails(client, 'read_file', { path: 7 }, /argument 'path' must be a string/);
    await callFails(client, 'read_file', { path: 'todo.md', length: 0 }, /'length' must be an integer from 1/);
    await callFails(client, 'read_file', { path: 'todo.md', lenght: 5 }, /unknown argument 'lenght'/);
    await callFails(client, 'search', { query: 'x', k: 'ten' }, /'k' must be an integer/);
    await callFails(client, 'search', { query: 'x', modified_after: 'yesterday' }, /modified_after/);
    await callFails(client, 'write_file', { path: '../escape', content: 'x' }, /\.\./);
    await callFails(client, 'write_file', { path: 'x', content: '!!!', encoding: 'base64' }, /base64/);
    await callFails(client, 'write_file', { path: 'huge', content: 'x'.repeat(16 * 1024 * 1024 + 1) }, /at most 16777216/);
    await callFails(client, 'restore', { snapshot: 'no-such-snapshot' }, /not found/i);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /unknown tool 'no_such_tool'/);
    // Nothing of that changed the store.
    await callFails(client, 'stat', { path: 'huge' }, /not found/i);
    assert.equal((await call(client, 'read_file', { path: 'todo.md' })).content, 'one\n2\nthree\n2\n');
  });

  test('search finds what was written, with filters and in snapshots', async () => {
    await call(client, 'write_file', { path: 'lighthouse/keeper.md', content: 'The lighthouse keeper trims the wick at dusk.\n' });
    await call(client, 'write_file', { path: 'galley/recipes.md', content: 'Bake the bread before the storm arrives.\n' });
    const found = await call(client, 'search', { query: 'lighthouse wick', k: 3 });
    assert.equal(found.hits[0].path, 'lighthouse/keeper.md');
    assert.match(found.hits[0].snippet, /wick/);
    assert.equal(typeof found.hits[0].offset, 'number');
    const bread = await call(client, 'search', { query: 'bread storm', under: 'galley' });
    assert.equal(bread.hits[0].path, 'galley/recipes.md');
    const under = await call(client, 'search', { query: 'lighthouse wick', under: 'galley' });
    assert.ok(under.hits.every((h) => h.path.startsWith('galley/')), JSON.stringify(under.hits));
    await call(client, 'snapshot_create', { name: 'before-storm', message: 'what we knew' });
    await call(client, 'write_file', { path: 'lighthouse/keeper.md', content: 'Retired.\n' });
    const then = await call(client, 'search', { query: 'lighthouse wick', at: 'before-storm', k: 1 });
    assert.equal(then.hits[0].path, 'lighthouse/keeper.md');
    assert.match(then.hits[0].snippet, /wick/);
  });

  test('versions: snapshots, log, diff, a destructive restore, branches', async () => {
    await call(client, 'write_file', { path: 'plan.md', content: 'plan A\n' });
    const s1 = await call(client, 'snapshot_create', { name: 's1', message: 'plan A', meta: { by: 'test' } });
    assert.deepEqual(s1.names, ['s1']);
    assert.deepEqual(s1.meta, { by: 'test' });
    await call(client, 'write_file', { path: 'plan.md', content: 'plan B\n' });
    await call(client, 'write_file', { path: 'new.md', content: 'only after s1\n' });
    const names = (await call(client, 'snapshot_list')).snapshots.flatMap((s) => s.names);
    assert.ok(names.includes('s1') && names.includes('before-storm'));
    const log = await call(client, 'log', { limit: 1 });
    assert.deepEqual(log.commits[0].names, ['s1']);
    const diff = await call(client, 'diff', { from: 's1' });
    const changes = Object.fromEntries(diff.changes.map((c) => [c.path, c.change]));
    assert.equal(changes['plan.md'], 'modified');
    assert.equal(changes['new.md'], 'added');
    await callFails(client, 'snapshot_create', { name: 's1' }, /exists/i);

    const restored = await call(client, 'restore', { snapshot: 's1' });
    assert.equal(restored.restored, 's1');
    assert.equal((await call(client, 'read_file', { path: 'plan.md' })).content, 'plan A\n');
    await callFails(client, 'read_file', { path: 'new.md' }, /not found/i);

    await call(client, 'branch_create', { name: 'experiment', from_snapshot: 's1' });
    const branches = await call(client, 'branch_list');
    assert.deepEqual(branches.branches.map((b) => b.name).sort(), ['experiment', 'main']);
    assert.equal(branches.served, 'main');
  });

  test('resources: files and snapshots as vexfs:// URIs', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('vexfs://files/plan.md'), uris.join(' '));
    assert.ok(uris.includes('vexfs://snapshots/s1/'), uris.join(' '));
    const file = await client.readResource({ uri: 'vexfs://files/plan.md' });
    assert.equal(file.contents[0].text, 'plan A\n');
    const old = await client.readResource({ uri: 'vexfs://snapshots/before-storm/lighthouse/keeper.md' });
    assert.match(old.contents[0].text, /wick/);
    const dir = await client.readResource({ uri: 'vexfs://snapshots/s1/' });
    assert.equal(dir.contents[0].mimeType, 'application/json');
    assert.ok(JSON.parse(dir.contents[0].text).entries.some((e) => e.name === 'plan.md'));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.equal(resourceTemplates.length, 2);
    await assert.rejects(client.readResource({ uri: 'vexfs://files/missing.md' }), /not found/i);
    await assert.rejects(client.readResource({ uri: 'https://example.com/' }), /vexfs:\/\//);
  });
});

describe('a read-only server', () => {
  test('offers only the reading tools and refuses writes by name', async () => {
    const store = newStore('readonly');
    const writer = await connect(store);
    await call(writer, 'write_file', { path: 'kept.md', content: 'kept\n' });
    await writer.close();
    const client = await connect(store, ['--read-only']);
    after(() => client.close());
    const { tools } = await client.listTools();
    assert.ok(tools.every((t) => t.annotations.readOnlyHint), tools.map((t) => t.name).join(' '));
    assert.ok(tools.some((t) => t.name === 'search'));
    await assert.rejects(client.callTool({ name: 'write_file', arguments: { path: 'x', content: 'y' } }), /read-only/);
    assert.equal((await call(client, 'read_file', { path: 'kept.md' })).content, 'kept\n');
  });
});

// One raw session: messages as bytes, replies as parsed lines, in order.
function rawSession(store, lines) {
  return new Promise((resolve, reject) => {
    const child = spawn(VEXFS, ['--store', store, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, replies: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) }));
    child.stdin.end(lines.join('\n') + '\n');
  });
}

describe('the protocol itself', () => {
  test('malformed messages get JSON-RPC errors and the session goes on; EOF ends it cleanly', async () => {
    const store = newStore('raw');
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
    const { code, replies } = await rawSession(store, [
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }),  // before initialize
      '{"jsonrpc": "2.0", "id": 2, "method": ',                         // cut JSON
      JSON.stringify(init),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'ping' }]),      // a batch
      JSON.stringify({ jsonrpc: '1.0', id: 4, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'no/such/method' }),
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'read_file', arguments: [] } }),
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }),
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'ok.md', content: 'still serving' } } }),
    ]);
    assert.equal(code, 0);
    const byId = (id) => replies.find((r) => r.id === id);
    assert.equal(byId(0).error.code, -32600);
    assert.match(byId(0).error.message, /not initialized/);
    assert.ok(replies.some((r) => r.id === null && r.error.code === -32700));
    assert.equal(byId(1).result.protocolVersion, '2025-06-18');
    assert.ok(replies.some((r) => r.id === null && /batch/.test(r.error.message)));
    assert.equal(byId(4).error.code, -32600);
    assert.equal(byId(5).error.code, -32601);
    assert.equal(byId(6).result.isError, true);
    assert.equal(byId(7).error.code, -32602);
    assert.deepEqual(byId(8).result, {});
    assert.equal(byId(9).result.isError, false);
    assert.equal(replies.length, 11 - 1);  // the notification has no reply
    assert.equal(execFileSync(VEXFS, ['--store', store, 'cat', 'ok.md']).toString(), 'still serving');
  });

  test('an unknown protocol version gets the newest this server speaks', async () => {
    const store = newStore('version');
    const { replies } = await rawSession(store, [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'old', version: '0' } } })]);
    assert.equal(replies[0].result.protocolVersion, '2025-11-25');
  });
});

describe('two clients on one store', () => {
  test('two servers adding graph nodes and links at once lose nothing', async () => {
    const store = newStore('graph-shared');
    const [a, b] = await Promise.all([connect(store), connect(store)]);
    after(() => Promise.all([a.close(), b.close()]));
    const count = 20;
    const adds = (client, who) =>
      Promise.all(Array.from({ length: count }, (_, i) =>
        call(client, 'graph_add', {
          nodes: [{ kind: 'fact', text: `${who} fact ${i}`, key: `${who}-${i}`, thread: who },
                  { kind: 'entity', text: `shared ${i % 5}` }],
          links: [{ from: '#0', kind: 'mentions', to: '#1' }],
        })));
    await Promise.all([adds(a, 'a'), adds(b, 'b')]);
    for (const who of ['a', 'b']) {
      for (let i = 0; i < count; ++i) {
        const hood = await call(a, 'graph_neighbors', { id: `key:${who}-${i}` });
        assert.equal(hood.nodes.length, 2, `${who}-${i}`);
        assert.equal(hood.edges.length, 1, `${who}-${i}`);
      }
    }
    const shared = await call(b, 'graph_neighbors', { id: 'entity:shared 0', direction: 'in' });
    assert.equal(shared.nodes.length, 1 + 8, 'four facts of each server mention it');
  });

  test('concurrent writes from two server processes lose nothing', async () => {
    const store = newStore('shared');
    const [a, b] = await Promise.all([connect(store), connect(store)]);
    after(() => Promise.all([a.close(), b.close()]));
    const count = 40;
    const writes = (client, who) =>
      Promise.all(Array.from({ length: count }, (_, i) =>
        call(client, 'write_file', { path: `${who}/note-${i}.md`, content: `${who} ${i}\n` })));
    await Promise.all([writes(a, 'a'), writes(b, 'b')]);
    // Both also append to one shared file, each edit a read-modify-write.
    await call(a, 'write_file', { path: 'shared.md', content: 'log:\n' });
    for (let i = 0; i < 10; ++i) {
      await Promise.all([a, b].map(async (client, who) => {
        for (;;) {
          const now = await call(client, 'read_file', { path: 'shared.md' });
          const result = await client.callTool({ name: 'edit_file', arguments: { path: 'shared.md', old_text: now.content, new_text: `${now.content}${who}${i}\n` } });
          if (!result.isError) return;
          assert.match(result.content[0].text, /occurs 0 times/);  // the other won: read again
        }
      }));
    }
    const listed = await call(a, 'list_directory', { recursive: true });
    const files = listed.entries.filter((e) => e.type === 'file').map((e) => e.path);
    assert.equal(files.filter((p) => p.startsWith('a/')).length, count);
    assert.equal(files.filter((p) => p.startsWith('b/')).length, count);
    for (let i = 0; i < count; ++i) {
      assert.equal((await call(b, 'read_file', { path: `a/note-${i}.md` })).content, `a ${i}\n`);
    }
    const shared = (await call(b, 'read_file', { path: 'shared.md' })).content.split('\n').filter(Boolean);
    assert.equal(shared.length, 1 + 20, shared.join(','));
  });
});
