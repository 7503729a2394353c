"""Random templates and objects for ../template-random-cases.json: generate(seed, count)."""
import random


def generate(seed, count):
    random.seed(seed)
    return _cases(count)


R = random.random
ch = random.choice
def maybe(p=0.5): return R() < p
def s(): return ch(["a", "b", "x-y", "app", "0", "", "web", "1.2", "12"])
def const():
    k = ch(["string", "integer", "float", "boolean", "stringSlice", "integerSlice", "floatSlice", "stringMap", "none", "two"])
    return {"string": {"string": s()}, "integer": {"integer": random.randint(-3, 20)}, "float": {"float": ch(["1.2", "0.5", "3", "2.50"])},
            "boolean": {"boolean": maybe()}, "stringSlice": {"stringSlice": [s() for _ in range(random.randint(0, 3))]},
            "integerSlice": {"integerSlice": [random.randint(0, 15) for _ in range(random.randint(0, 3))]},
            "floatSlice": {"floatSlice": [ch(["1.2", "1.4"]) for _ in range(random.randint(0, 2))]},
            "stringMap": {"stringMap": {s() or "k": s() for _ in range(random.randint(0, 3))}}, "none": {},
            "two": {"integer": 3, "boolean": True}}[k]
def quantity(kind):
    if kind == "cpu": return ch(["500m", "1", "2", "0", "1.5", "250m", "3m", "100", 2, "0.5"])
    return ch(["1Gi", "512Mi", "1G", "1000", "0", "10Gi", "1Ki", "7K", "1Ti", "1Ei", "1.5Gi", "", "3", 1024])
def resources():
    r = {}
    for part in ["limits", "requests"]:
        if maybe(0.7):
            r[part] = {k: quantity(k) for k in ["cpu", "memory", "ephemeral-storage"] if maybe(0.6)}
    return r
def obj():
    kind = ch(["Pod", "Pod", "Deployment", "StatefulSet"])
    meta = {"name": ch(["web", "db"]), "namespace": "default"}
    if maybe(0.6): meta["annotations"] = {k: s() for k in ["a", "owned-by", "xxx-id", "n"] if maybe()}
    if maybe(0.6): meta["labels"] = {k: s() for k in ["app", "xxx-id"] if maybe()}
    c = {"name": "c", "image": ch(["nginx", "fake-image"])}
    if maybe(0.8): c["resources"] = resources()
    spec = {"containers": [c]}
    if maybe(0.5): spec["tolerations"] = [tol(True) for _ in range(random.randint(0, 3))]
    if maybe(0.5): spec["affinity"] = affinity(True)
    if maybe(0.5): spec["replica"] = random.randint(0, 20)
    if maybe(0.3): spec["restartPolicy"] = "Always"
    if kind != "Pod": spec = {"replica": spec.get("replica", 1), "template": {"spec": spec}}
    return {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": spec}
def tol(obj_side):
    t = {}
    if maybe(0.9 if not obj_side else 0.95): t["key"] = ch(["a", "b", "c"])
    if maybe(0.9): t["operator"] = ch(["Exists", "Equal"] if not obj_side else ["Exists", "Equal"])
    if maybe(0.7 if not obj_side else 0.97): t["value"] = ch(["x", "y"])
    if maybe(0.5): t["effect"] = ch(["NoSchedule", "NoExecute"])
    if maybe(0.3): t["tolerationSeconds"] = random.randint(0, 600)
    return t
def nterm(): return {ch(["matchExpressions", "matchFields"]): [{"key": ch(["a", "b"]), "operator": "In", "values": [s()]}]} if maybe(0.9) else {}
def pterm(): return {"topologyKey": ch(["h", "z"]), **({"labelSelector": {"matchLabels": {"app": s() or "q"}}} if maybe() else {})}
def affinity(obj_side):
    a = {}
    n = 1 if not obj_side else random.randint(0, 2)
    if maybe(0.6):
        na = {}
        if maybe(0.6): na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [nterm() for _ in range(random.randint(0 if obj_side else 1, 1))]}
        if maybe(0.6): na["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": random.randint(1, 100), "preference": nterm()} for _ in range(random.randint(0 if obj_side else 1, 1))]
        a["nodeAffinity"] = na
    for part in ["podAffinity", "podAntiAffinity"]:
        if maybe(0.5):
            pa = {}
            if maybe(0.6): pa["requiredDuringSchedulingIgnoredDuringExecution"] = [pterm() for _ in range(random.randint(0, 2))]
            if maybe(0.6): pa["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": random.randint(1, 100), "podAffinityTerm": pterm()} for _ in range(random.randint(0, 2))]
            a[part] = pa
    return a
def path():
    return ch(["/spec/restartPolicy", "/metadata/name", "/spec/replica", "/spec/containers/0/image", "spec.containers[0].image",
               "/metadata/annotations/owned-by", "/metadata/labels/app", "body.name", "body.n", "/spec/template/spec/replica", "/nope/x"])
def ref():
    f = ch(["current", "old", "k8s", "http", "owner"])
    r = {"from": f, "path": path()}
    if f == "k8s": r["k8s"] = {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "web"}}}
    if f == "http": r["http"] = {"url": "https://x", "method": "GET"}
    return r
def _cases(count):
  cases = []
  for i in range(count):
      o = obj()
      if maybe(0.3): o["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs"}]
      old = obj() if maybe(0.5) else None
      kube = ch([None, [], [obj()], obj()])
      http = ch([None, {"name": "svc", "n": 3, "origin": "a", "target": ch(["a", "b"])}])
      if maybe(0.65):
          t = ch(["annotations", "labels", "resources", "resourcesOversell", "tolerations", "affinity"])
          op = ch(["add", "replace", "remove"])
          tpl = {"type": t, "operation": op}
          if t in ("annotations", "labels"):
              tpl["path"] = ch(["owned-by", "a", "xxx-id", "example.com/team", "n"])
              if maybe(0.6): tpl["value"] = const()
              elif maybe(0.8): tpl["valueRef"] = ref()
          elif t == "resources":
              if maybe(0.85): tpl["resources"] = {k: {r: quantity(r) for r in ["cpu", "memory"] if maybe()} for k in ["limits", "requests"] if maybe(0.7)}
          elif t == "resourcesOversell":
              tpl["resourcesOversell"] = {f: ch(["0.5", "0.2", "0", "1", "2", "0.333"]) for f in ["cpuFactor", "memoryFactor", "diskFactor"] if maybe(0.6)}
          elif t == "tolerations":
              tpl["tolerations"] = [tol(False) for _ in range(random.randint(0, 1 if op == "add" else 2))]
          else:
              tpl["affinity"] = affinity(False)
          if maybe(0.1) and t not in ("annotations", "labels"): tpl["valueRef"] = ref()
          cases.append(dict(id="fuzz-o%d" % i, go="fuzz", kind="override", template=tpl, operation=ch(["CREATE", "UPDATE"]), object=o, oldObject=old, kube=kube, http=http))
      else:
          cond = ch(["Equal", "NotEqual", "Exist", "NotExist", "In", "NotIn", "Gt", "Gte", "Lt", "Lte"])
          c = {"cond": cond, "message": ch(["no", "forbidden"]), "dataRef": ref()}
          if c["dataRef"]["from"] == "owner": c["dataRef"]["from"] = "current"
          if cond in ("In", "NotIn"): c["value"] = const()
          elif maybe(0.6): c["value"] = ch([{"integer": random.randint(0, 20)}, {"string": s()}, {"float": "2.5"}, {"boolean": True}])
          else: c["valueRef"] = ref()
          if cond not in ("In", "NotIn", "Exist", "NotExist") and maybe(0.3) and ("valueRef" in c or "integer" in c.get("value", {})):
              c["valueProcess"] = {"operation": ch(["+", "-", "*", "/"]), "operationWith": ch([2, "50%", "1.5", 0])}
          if maybe(0.3): c["affectMode"] = ch(["reject", "allow"])
          cases.append(dict(id="fuzz-v%d" % i, go="fuzz", kind="validate", template={"type": "condition", "condition": c}, operation=ch(["CREATE", "UPDATE", "DELETE"]), object=o, oldObject=old, kube=kube, http=http))
  return cases
