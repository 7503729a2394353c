"""Writes ../template-cases.json and ../template-random-cases.json: the cases of cases.py and fuzz.py with the
results the oracle computes. Usage: python3 run.py ORACLE (the binary `go build` makes of main.go here)."""
import json
import os
import subprocess
import sys

import cases
import fuzz

HERE = os.path.dirname(os.path.abspath(__file__))
ABOUT = ["Cases for kinitiras's template overriders and validate templates, each citing the kinitiras Go test or"
         " example it comes from (field 'go').",
         "Inputs are written by hand (oracle/cases.py); every expectation was computed by kinitiras's own template"
         " renderer (github.com/k-cloud-labs/pkg v0.4.5,",
         "utils/interrupter/model and utils/templatemanager) evaluated with cuelang.org/go v0.4.3 as kinitiras"
         " evaluates it (oracle/main.go), except where 'kinitiras' says",
         "the refusal comes from kinitiras's CRD schema or the case is not run by that check. 'kube' answers the"
         " k8s/owner lookups, 'http' is the HTTP",
         "response body. expect: patches (exact), refusal (null: the request passes), error (the evaluation fails),"
         " refused (parse refuses, naming the field)."]


def oracle_input(c):
    """The oracle's parameters, bound as kinitiras binds them: the first selected object, {body: response}."""
    extra = {}
    kube = c.get('kube')
    if kube is not None:
        first = (kube[0] if kube else None) if isinstance(kube, list) else kube
        extra['otherObject'] = extra['otherObject_d'] = first
    if c.get('http') is not None:
        extra['http'] = extra['http_d'] = {'body': c['http']}
    old = c.get('oldObject')
    if c['kind'] == 'validate' and c['operation'] != 'UPDATE':
        old = None
    return {'id': c['id'], 'mode': c['kind'], 'template': c['template'], 'object': c['object'],
            'oldObject': old, 'extraParams': extra}


def expect(oracle, all_cases):
    results = json.loads(subprocess.run([oracle], input=json.dumps([oracle_input(c) for c in all_cases]),
                                        capture_output=True, text=True, check=True).stdout)
    out = []
    for c in all_cases:
        o = results[c['id']]
        case = {k: v for k, v in c.items() if v is not None and k not in ('refused', 'note')}
        if c.get('note'):
            case['expect'], case['kinitiras'] = {'refusal': None}, c['note']
        elif 'renderError' in o or c.get('refused'):
            if not c.get('refused'):
                continue
            case['expect'] = {'refused': c['refused']}
            case['kinitiras'] = ('refused at admission: ' + o['renderError'][:160] if 'renderError' in o
                                 else 'CRD or admission check: ' + json.dumps(o)[:160])
        elif 'evalError' in o:
            case['expect'], case['kinitiras'] = {'error': True}, 'evaluation error: ' + o['evalError'][:160]
        elif 'patches' in o:
            case['expect'] = {'patches': o['patches']}
        else:
            case['expect'] = {'refusal': o['refusal']}
        out.append(case)
    return out


def fetch_fails_in_kinitiras(c):
    """The oracle binds what it is given; kinitiras fails to fetch a missing http answer or owner."""
    t = json.dumps(c['template'])
    return (('"from": "http"' in t and c.get('http') is None)
            or ('"from": "owner"' in t and (not c['object']['metadata'].get('ownerReferences')
                                              or not isinstance(c.get('kube'), dict))))


def main(oracle):
    with open(os.path.join(HERE, '..', 'template-cases.json'), 'w') as f:
        f.write(json.dumps({'about': ABOUT, 'cases': expect(oracle, cases.O)}, indent=1) + '\n')
    random_cases = [dict(c, go='random (seed 2026)') for c in expect(oracle, fuzz.generate(2026, 520))
                    if 'refused' not in c['expect'] and not fetch_fails_in_kinitiras(c)][:300]
    with open(os.path.join(HERE, '..', 'template-random-cases.json'), 'w') as f:
        f.write('{"about": ["Random templates and objects (seed 2026), expectations computed as in'
                ' template-cases.json."],\n "cases": [\n'
                + ',\n'.join(json.dumps(c, separators=(',', ':')) for c in random_cases) + '\n]}\n')


if __name__ == '__main__':
    main(sys.argv[1])
