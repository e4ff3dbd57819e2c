import assert from 'node:assert/strict';
import { defaultGateway } from '../engine/helpers';

/** /proc/net/route of a container on docker's default bridge (172.17.0.0/16, gateway 172.17.0.1). */
const BRIDGED = [
  'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
  'eth0\t00000000\t010011AC\t0003\t0\t0\t0\t00000000\t0\t0\t0',
  'eth0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0',
  '',
].join('\n');

describe('engine test helper: default gateway from /proc/net/route (unit)', () => {
  it('reads the default route gateway in host byte order', () => {
    assert.equal(defaultGateway(BRIDGED), '172.17.0.1');
  });

  it('returns undefined without a default route (network none: only lo, no routes)', () => {
    assert.equal(defaultGateway(BRIDGED.split('\n')[0]! + '\n'), undefined);
    // A default route without RTF_GATEWAY (flag 0x2) names no gateway.
    assert.equal(defaultGateway(BRIDGED.replace('\t0003\t', '\t0001\t').split('\n').slice(0, 2).join('\n')), undefined);
  });
});
