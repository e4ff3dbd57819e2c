/**
 * Attacks on the protocol and engine-selection surface (attack branch, 2026-11-30), each written so
 * that the test FAILS if the attack works. Engine replies here come from a fake engine on a unix
 * socket: what is tested is the client's handling of an untrusted answer, not container behaviour.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextDir } from '../../src/core/engine/endpoint';
import { EngineApiClient, MAX_REPLY_BYTES } from '../../src/core/engine/engineApi';
import { engineKey } from '../../src/core/engine/engineTarget';
import { PREAMBLE, PreambleReader } from '../../src/core/container/launcher';
import type { DockerOptions } from '../../src/core/engine/contracts';

/** A DOCKER_CONFIG folder with one context NAME → HOST, current when `current`. */
function configWith(name: string, host: string, current: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'sr-attack-'));
  const meta = join(dir, 'contexts', 'meta', contextDir(name));
  mkdirSync(meta, { recursive: true });
  writeFileSync(join(meta, 'meta.json'), JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } }));
  if (current) writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentContext: name }));
  return dir;
}

describe('attack surface: engine choice, launcher markers, engine replies (unit)', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const masked = (dir: string, over: Partial<DockerOptions> = {}): DockerOptions => ({
    env: { DOCKER_HOST: '', DOCKER_CONTEXT: '', DOCKER_CONFIG: dir }, ...over,
  });

  // Whether the runner reads /proc/<State.Pid> of THIS host (mount proof, pids evidence) is no
  // longer guessed from the endpoint: hostPid.ts accepts a pid only when its cgroup names the
  // container (test/unit/hostPid.test.ts; runner "State.Pid of another engine" on engine 2), and the
  // no-sh direct path asks the mount probe (mounts.ts directoryAccess).

  it('a context retargeted in place (meta.json only) is another engine for the per-engine caches (mount probe passes, identity)', () => {
    const dir = configWith('work', 'unix:///run/a.sock', false);
    dirs.push(dir);
    const opts = masked(dir, { context: 'work' });
    const first = engineKey(opts);
    // `docker context update work --docker host=…`: config.json is untouched.
    const meta = join(dir, 'contexts', 'meta', contextDir('work'), 'meta.json');
    writeFileSync(meta, JSON.stringify({ Name: 'work', Metadata: {}, Endpoints: { docker: { Host: 'ssh://me@elsewhere', SkipTLSVerify: false } } }));
    utimesSync(meta, new Date(Date.now() + 5000), new Date(Date.now() + 5000));
    assert.notEqual(engineKey(opts), first, 'a mount-probe pass of the old engine would be reused for the new one');
  });

  it('a ready marker printed before the launcher waits (CLI or engine words) never counts as ready', () => {
    const r = new PreambleReader();
    assert.equal(r.push(Buffer.from(`warning ${PREAMBLE.ready}${PREAMBLE.noCommand}`)).length, 0);
    assert.equal(r.verdict, 'pending');
    r.push(Buffer.from(PREAMBLE.waiting));
    assert.equal(r.verdict, 'waiting');
    r.end();
    assert.equal(r.verdict, 'absent');
  });

  it('markers split into single bytes are found; program bytes after ready pass unchanged, markers included', () => {
    const r = new PreambleReader();
    const out: Buffer[] = [];
    for (const b of Buffer.from(`${PREAMBLE.waiting}${PREAMBLE.ready}`)) out.push(r.push(Buffer.from([b])));
    assert.equal(r.verdict, 'ready');
    const program = Buffer.from(`${PREAMBLE.noCommand}${PREAMBLE.waiting}x`);
    out.push(r.push(program));
    r.end();
    assert.equal(r.verdict, 'ready');
    assert.deepEqual(Buffer.concat(out), program);
  });

  describe('an engine that answers with an unbounded body', () => {
    let server: http.Server;
    let dir: string;
    let sock: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sr-fake-engine-'));
      sock = join(dir, 'engine.sock');
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      server = http.createServer((req, res) => {
        res.setHeader('Api-Version', '1.41');
        if (req.url === '/_ping') return res.end('OK');
        res.writeHead(200, { 'Content-Type': 'application/json' });
        // An endless body: a client that buffers every byte runs this process out of memory.
        let sent = 0;
        const pump = () => {
          while (sent < MAX_REPLY_BYTES * 4 && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (sent = Infinity));
        pump();
      });
      await new Promise<void>((r) => server.listen(sock, r));
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    });

    it('is refused once the answer passes the reply bound, without holding it all', async () => {
      const c = new EngineApiClient({ kind: 'unix', socketPath: sock });
      try {
        const before = process.memoryUsage().arrayBuffers;
        await assert.rejects(c.request('GET', '/containers/x/json', 30_000), /larger than/);
        assert.ok(process.memoryUsage().arrayBuffers - before < MAX_REPLY_BYTES * 2, 'the client held the whole answer');
      } finally {
        c.close();
      }
    });
  });
});
