#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz tests (src/test/resources/<package>/<Class>Inputs/<method>/seed-*) from the
conformance corpora beside the checkout (../shared/conformance) and from examples/. The seeds are committed; run this
again when the corpora or examples change. Inputs Jazzer found (crash-*) live in the same folders and are kept.
Needs PyYAML."""
import glob
import hashlib
import json
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "conformance")
KUBEMOD = os.path.join(SHARED, "kubemod")
GATEKEEPER = os.path.join(SHARED, "gatekeeper")
MAX_SEED = 4096  # libFuzzer's default -max_len: longer seeds would be cut


def files(*patterns):
    out = []
    for pattern in patterns:
        out += sorted(glob.glob(os.path.join(ROOT, pattern) if not os.path.isabs(pattern) else pattern,
                                recursive=True))
    return out


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def walk(node, key):
    """Every string value under `key` anywhere in a YAML/JSON tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, str):
                yield v
            else:
                yield from walk(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v, key)


def documents(paths):
    for path in paths:
        try:
            yield from (d for d in yaml.safe_load_all(read(path)) if d is not None)
        except yaml.YAMLError:
            pass


def write(module, package, test, method, seeds):
    folder = os.path.join(ROOT, module, "src", "test", "resources", package.replace(".", "/"),
                          test + "Inputs", method)
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "seed-*")):
        os.remove(old)
    kept = set()
    for seed in seeds:
        data = seed.encode("utf-8")
        if 0 < len(data) <= MAX_SEED and data not in kept:
            kept.add(data)
            with open(os.path.join(folder, "seed-" + hashlib.sha1(data).hexdigest()[:12]), "wb") as f:
                f.write(data)
    print(f"{module}: {test}#{method}: {len(kept)} seeds")


def review(obj, operation="CREATE", old=None):
    request = {"uid": "1", "operation": operation, "namespace": (obj.get("metadata") or {}).get("namespace", "shop"),
               "object": obj}
    if old is not None:
        request["oldObject"] = old
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request})


def main():
    if not os.path.isdir(KUBEMOD) or not os.path.isdir(GATEKEEPER):
        sys.exit(f"fuzz-seeds: no conformance corpora under {SHARED}")
    kubemod_rules = files(os.path.join(KUBEMOD, "core/testdata/modrules/**/*.yaml"),
                          os.path.join(KUBEMOD, "samples/modrules/*.yaml"))
    remold_rules = files("examples/rules/*.yaml", "examples/kubemod-compat/*/*.yaml",
                         "examples/kubemod-readme/*/rule.yaml")
    objects_json = files(os.path.join(KUBEMOD, "core/testdata/resources/*.json"))
    objects = [json.loads(read(p)) for p in objects_json] + [
        d for d in documents(files("examples/**/input.yaml", "examples/**/old.yaml")) if isinstance(d, dict)]
    cases = yaml.safe_load(read(os.path.join(GATEKEEPER, "cases.yaml")))

    write("json", "io.remold.json", "JsonTreeFuzzTest", "parse",
          [read(p) for p in objects_json] + [review(o) for o in objects]
          + ['{"a":[1,-0.5e+3,true,false,null,"\\u00e9\\n\\ud83d\\ude00"]}'])

    selects = [s for d in documents(kubemod_rules + remold_rules) for s in walk(d, "select")]
    write("jsonpath", "io.remold.jsonpath", "JsonPathFuzzTest", "compileAndSelect",
          selects + [s + "\n" + json.dumps(o) for s, o in zip(selects, objects)])

    remold_docs = [d for d in documents(remold_rules) if d.get("apiVersion", "").startswith("remold.io")]
    kubemod_docs = list(documents(kubemod_rules)) + [
        d for d in documents(remold_rules) if d.get("apiVersion", "").startswith("api.kubemod.io")]
    write("templating", "io.remold.templating", "TemplateFuzzTest", "compileAndRender",
          [v for d in remold_docs for key in ("value", "rejectMessage") for v in walk(d, key)])
    write("templating", "io.remold.templating", "GoTemplateFuzzTest", "translate",
          [v for d in kubemod_docs for key in ("value", "rejectMessage") for v in walk(d, key)])

    rule_texts = [read(p) for p in kubemod_rules + remold_rules]
    write("api", "io.remold.api", "ModRulesFuzzTest", "parse", rule_texts)
    write("engine", "io.remold.engine", "RuleFuzzTest", "compileAndRun", rule_texts)
    write("engine", "io.remold.engine", "AdmissionReviewFuzzTest", "review",
          [review(o) for o in objects] + [review(o, "UPDATE", o) for o in objects[:3]]
          + [review(o, "DELETE") for o in objects[:2]])

    gatekeeper_cases = [c for category in cases.values() if isinstance(category, list) for c in category]
    write("gatekeeper", "io.remold.gatekeeper.path", "LocationFuzzTest", "parse",
          [c["location"] for c in gatekeeper_cases if isinstance(c.get("location"), str)]
          + [v for c in gatekeeper_cases for v in walk(c, "location")])
    manifests = [yaml.safe_dump(m, sort_keys=False) for c in gatekeeper_cases
                 for m in ([c["mutator"]] if isinstance(c.get("mutator"), dict) else [])
                 + [m for m in c.get("mutators", []) if isinstance(m, dict)]]
    write("gatekeeper", "io.remold.gatekeeper", "MutatorFuzzTest", "parseAndMutate",
          manifests + [read(p) for p in files("examples/gatekeeper/*/rule.yaml")])
    # Raw bytes for a FuzzedDataProvider: pointers come from the front, the choices from the end.
    write("engine", "io.remold.engine", "JsonPatcherFuzzTest", "apply",
          [p + "\x00\x01\x02\x03" for p in ("/spec/containers/0/name", "/metadata/labels/a~1b", "/a/-",
                                                  "/spec/containers/-1", "/1/0", "")])


if __name__ == "__main__":
    main()
