/**
 * The `--mount` values of a container argv (docker's CSV syntax), built as data. Every value that
 * lands in them was checked by argv.ts `assertSpec` first.
 */
/** Host file bound over a masked file: reads are empty, and it is the same on every engine host. */
export const MASK_FILE_SOURCE = '/dev/null';

/** `--mount` value of a mask (argv.ts `ResolvedMount.mask`): an empty read-only tmpfs (4 KiB) or `/dev/null` bound read-only. */
export function maskMount(m: { readonly mask?: 'dir' | 'file'; readonly target: string }): string {
  return m.mask === 'dir' ? `type=tmpfs,dst=${m.target},readonly,tmpfs-size=4096` : bindMount(MASK_FILE_SOURCE, m.target, true);
}

/** `--mount` value of a plain bind mount. */
export function bindMount(source: string, target: string, readOnly: boolean): string {
  return `type=bind,src=${source},dst=${target}` + (readOnly ? ',readonly' : '');
}

/**
 * `--mount` value for a pinned directory (argv.ts `ResolvedMount.pinned`). `volume-nocopy`: the
 * image's files at the target are never copied into the host directory. Read-only comes from the
 * volume's own mount options (`o=bind,ro`, a CSV field quoted because it holds a comma): docker
 * refuses the `readonly` flag on anonymous volumes.
 */
export function pinnedMount(pinned: string, target: string, readOnly: boolean): string {
  return [
    'type=volume',
    `dst=${target}`,
    'volume-nocopy',
    'volume-driver=local',
    'volume-opt=type=none',
    `"volume-opt=o=bind${readOnly ? ',ro' : ''}"`,
    `volume-opt=device=${pinned}`,
  ].join(',');
}

/**
 * `--mount` value of a named engine volume (issue 22: an installed dependency set). Read-only (a
 * run's mount) adds `volume-nocopy`: the image's files at the target never enter the volume.
 * Writable (the install container's): an empty volume takes the mode and owner of the image's
 * directory at the target (docker's copy-up), which is how the non-root installer can write it.
 */
export function volumeMount(name: string, target: string, readOnly: boolean): string {
  return `type=volume,src=${name},dst=${target}` + (readOnly ? ',volume-nocopy,readonly' : '');
}
