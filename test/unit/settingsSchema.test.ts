import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingsContribution } from '../../src/core/profiles/settingsSchema';

describe('settings schema (unit)', () => {
  it('package.json contributes.configuration is exactly the schema generated from zod (run npm run gen:schema)', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.configuration, JSON.parse(JSON.stringify(settingsContribution())));
  });

  it('keeps the docker path machine-scoped and the limits ranges from the zod schema', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking generated JSON
    const c = settingsContribution() as { properties: Record<string, any> };
    assert.equal(c.properties['sandboxRunner.dockerPath'].scope, 'machine');
    // Where code goes: machine-scoped (never from a workspace) and restricted in untrusted workspaces.
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
    for (const key of ['sandboxRunner.dockerContext', 'sandboxRunner.dockerHost', 'sandboxRunner.dependencies.network', 'sandboxRunner.dependencies.pipIndexUrl', 'sandboxRunner.dependencies.npmRegistry']) {
      assert.equal(c.properties[key].scope, 'machine', key);
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
    }
    // Issue 22: no install setting is read from a workspace.
    for (const key of Object.keys(c.properties).filter((k) => k.startsWith('sandboxRunner.dependencies.'))) assert.equal(c.properties[key].scope, 'machine', key);
    // A workspace can set neither the warm-start mode nor its expiry.
    assert.equal(c.properties['sandboxRunner.warmStart'].scope, 'application');
    assert.equal(c.properties['sandboxRunner.warmIdleSeconds'].scope, 'application');
    const limits = c.properties['sandboxRunner.profiles'].additionalProperties.properties.limits.properties;
    assert.deepEqual([limits.pids.minimum, limits.pids.maximum, limits.pids.type], [8, 4096, 'integer']);
    assert.deepEqual(c.properties['sandboxRunner.profiles'].additionalProperties.properties.network.enum, ['none', 'bridge']);
  });
});
