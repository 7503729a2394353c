"""Runs Remold's renderedCue of every template case on kinitiras's own engine and compares with the case's expectation.

Usage: python3 rendered.py ORACLE [RENDERED], ORACLE the binary `go build` makes of main.go here, RENDERED the file
RenderedCueCasesTest leaves (default: kinitiras/target/rendered-cue-cases.json). For each case the oracle checks the
text as kinitiras's policy webhook does (CueManager.Validate), then evaluates it as kinitiras's engine evaluates a
renderedCue (its Go decoding included). Exits 1 unless every case agrees."""
import json
import os
import subprocess
import sys

import run

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = os.path.normpath(os.path.join(HERE, *[os.pardir] * 8))


def agrees(expected, got):
    if 'skipped' in got:  # nothing rendered: kinitiras skips the rule, so the request passes
        return expected.get('refusal', 'unset') is None
    if 'error' in expected:
        return 'evalError' in got
    if 'patches' in expected:
        return json.dumps(got.get('patches'), sort_keys=True) == json.dumps(expected['patches'], sort_keys=True)
    return 'refusal' in got and got['refusal'] == expected['refusal']


def main():
    oracle = sys.argv[1]
    rendered_file = sys.argv[2] if len(sys.argv) > 2 else os.path.join(MODULE, 'target', 'rendered-cue-cases.json')
    with open(rendered_file) as f:
        rendered = {r['id']: r['renderedCue'] for r in json.load(f)}
    inputs, expected = [], {}
    for name in ('template-cases.json', 'template-random-cases.json'):
        with open(os.path.join(HERE, os.pardir, name)) as f:
            for c in json.load(f)['cases']:
                if c['id'] in rendered:
                    inputs.append(dict(run.oracle_input(c), renderedCue=rendered[c['id']]))
                    expected[c['id']] = c['expect']
    out = json.loads(subprocess.run([oracle], input=json.dumps(inputs), capture_output=True, text=True,
                                    check=True).stdout)
    differing = [(cid, expected[cid], out[cid]) for cid in expected if not agrees(expected[cid], out[cid])]
    print(f'{len(expected) - len(differing)} of {len(expected)} rendered cases agree with kinitiras\'s engine')
    for cid, exp, got in differing:
        print(f'  {cid}: expected {json.dumps(exp)}, got {json.dumps(got)}')
    sys.exit(1 if differing or not expected else 0)


if __name__ == '__main__':
    main()
