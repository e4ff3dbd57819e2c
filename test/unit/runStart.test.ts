import assert from 'node:assert/strict';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { type ProfileLayer, type ProfileQuery, resolveProfiles } from '../../src/core/profiles/profileResolution';
import type { LooseningReport } from '../../src/core/admission/loosening';
import { decideRunStart, type RunCaller, type RunStartFacts } from '../../src/core/admission/runStart';

/** The facts for `layers` (workspace layers as given), with consent answered by `consented`. */
function facts(layers: ProfileLayer[], query: ProfileQuery, more: Partial<RunStartFacts> = {}): RunStartFacts {
  return { set: resolveProfiles(layers), settings: { layers }, query, caller: 'person', consented: () => false, ...more };
}

const ws = (value: unknown): ProfileLayer => ({ source: 'workspace', value });
const py: ProfileQuery = { languageId: 'python', fileName: '/w/a.py' };

describe('run start decision (unit)', () => {
  it('goes ahead with the profile for the file, the set\'s issues as warnings', () => {
    const d = decideRunStart(facts([ws({ python: { limits: { memoryMiB: 64 } }, broken: 5 })], py));
    assert.equal(d.kind, 'go');
    assert.ok(d.kind === 'go');
    assert.equal(d.chosen.name, 'python');
    assert.equal(d.chosen.profile.limits.memoryMiB, 64);
    assert.deepEqual(d.warnings.map((i) => i.key), ['sandboxRunner.profiles.broken']);
    assert.equal(d.loosening, undefined);
  });

  it('refuses a name no valid profile has, naming the invalid entry of that name', () => {
    const missing = decideRunStart(facts([], { name: 'nope' }));
    assert.deepEqual(missing, { kind: 'no-profile', name: 'nope', invalidEntry: undefined });
    const invalid = decideRunStart(facts([ws({ bad: { image: 3 } })], { name: 'bad' }));
    assert.equal(invalid.kind, 'no-profile');
    assert.ok(invalid.kind === 'no-profile');
    assert.equal(invalid.invalidEntry?.name, 'bad');
    assert.deepEqual(decideRunStart(facts([], { fileName: '/w/a.cobol' })), { kind: 'no-profile', name: undefined, invalidEntry: undefined });
  });

  it('says Restricted Mode when the workspace is untrusted and no profile is found', () => {
    assert.equal(decideRunStart(facts([], { name: 'hostile' }, { trusted: false })).kind, 'restricted');
    // Trusted or not, a built-in profile still runs.
    assert.equal(decideRunStart(facts([], py, { trusted: false })).kind, 'go');
  });

  it('refuses a malformed entry for the chosen profile, or one meant for the file, with its issues', () => {
    const d = decideRunStart(facts([ws({ python: 'not an object' })], py));
    assert.equal(d.kind, 'malformed');
    assert.ok(d.kind === 'malformed');
    assert.equal(d.chosen.name, 'python');
    assert.deepEqual(d.issues.map((i) => i.key), ['sandboxRunner.profiles.python']);
    const meant = decideRunStart(facts([ws({ py3: { extensions: ['.py'], limits: { memoryMiB: 'lots' } } })], { fileName: '/w/a.py' }));
    assert.equal(meant.kind, 'malformed');
  });

  it('a loosening needs a person\'s consent: refused with its loosenings and arguments until consented', () => {
    const layers = [ws({ python: { network: 'bridge' } })];
    const d = decideRunStart(facts(layers, py));
    assert.equal(d.kind, 'needs-consent');
    assert.ok(d.kind === 'needs-consent');
    assert.equal(d.chosen.name, 'python');
    assert.deepEqual(d.report.loosenings.map((l) => l.key), ['sandboxRunner.profiles.python.network']);
    assert.deepEqual([d.report.addedArgs, d.report.removedArgs], [['--network bridge'], ['--network none']]);
    const seen: LooseningReport[] = [];
    const go = decideRunStart(facts(layers, py, { consented: (r) => (seen.push(r), true) }));
    assert.equal(go.kind, 'go');
    assert.ok(go.kind === 'go');
    assert.equal(go.loosening, seen[0]);
    assert.equal(seen.length, 1);
  });

  it('an agent is never asked: a loosening without consent is refused for it', () => {
    const layers = [ws({ python: { network: 'bridge' } })];
    const agent: RunCaller = 'agent';
    assert.equal(decideRunStart(facts(layers, { name: 'python' }, { caller: agent })).kind, 'agent-loosening');
    assert.equal(decideRunStart(facts(layers, { name: 'python' }, { caller: agent, consented: () => true })).kind, 'go');
  });

  it('an inline profile runs as given: no setting chooses, blocks or loosens it', () => {
    const profile = ProfileSchema.parse({ image: 'img', command: ['${file}'], network: 'bridge' });
    const d = decideRunStart(facts([ws({ inline: 'malformed', python: { network: 'bridge' } })], { name: 'inline', fileName: '/w/a.py' }, { inline: { name: 'inline', profile } }));
    assert.deepEqual(d, { kind: 'go', chosen: { name: 'inline', source: 'user', profile }, warnings: [] });
  });

  it('uses defaultProfile when the query matches none, and checks its loosening', () => {
    const layers = [ws({ net: { image: 'img', command: ['${file}'], network: 'bridge' } })];
    const d = decideRunStart(facts(layers, { languageId: 'plaintext', fileName: '/w/a.txt' }, { settings: { layers, defaultProfile: 'net' } }));
    assert.equal(d.kind, 'needs-consent');
    assert.ok(d.kind === 'needs-consent');
    assert.equal(d.chosen.name, 'net');
  });
});
