import assert from 'node:assert/strict';
import { settingsContribution } from '../../src/core/profiles/settingsSchema';
import { localizedPackageJson } from './localizedPackage';

interface MenuItem {
  command: string;
  when?: string;
}

describe('interactive runs in package.json (unit)', () => {
  const pkg = localizedPackageJson();
  const menus = pkg.contributes.menus as Record<string, MenuItem[]>;

  it('contributes "Run in Sandbox (Interactive)" to the palette, the editor context menu and the editor title run menu', () => {
    const command = (pkg.contributes.commands as { command: string; title: string; category: string }[]).find((c) => c.command === 'sandboxRunner.runInteractive');
    assert.deepEqual([command?.title, command?.category], ['Run in Sandbox (Interactive)', 'Sandbox Runner']);
    for (const menu of ['commandPalette', 'editor/context', 'editor/title/run']) {
      const item = menus[menu]!.find((m) => m.command === 'sandboxRunner.runInteractive');
      assert.ok(item, `not in ${menu}`);
      assert.notEqual(item.when, 'false', `hidden in ${menu}`);
    }
  });

  it('declares sandboxRunner.interactive (never | always, default never), ignored from untrusted workspaces', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking generated JSON
    const setting = (settingsContribution() as { properties: Record<string, any> }).properties['sandboxRunner.interactive'];
    assert.deepEqual([setting.type, setting.enum, setting.default, setting.scope], ['string', ['never', 'always'], 'never', 'resource']);
    assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('sandboxRunner.interactive'));
  });
});
