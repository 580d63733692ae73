#!/usr/bin/env python3
"""The chart's checks beyond `helm lint`, run by scripts/test-helm.

Every subcommand reads the manifests `helm template` rendered into
RENDERED (one `<case>.yaml` per values file in helm/tabula/ci/) and exits 1
on the first failed check, saying what and where.

  k8s        every object against the Kubernetes OpenAPI schemas (strict),
             custom resources against their upstream CRD schemas
  values     values.schema.json is the one tests/gen_schema.py builds and
             covers every value; the README's table is the one values.yaml's
             comments give (--regenerate rewrites both)
  invariants what the chart promises (drain timing, probes, security,
             rollout, labels) holds in every render
  rules      alerts and dashboard: PromQL parses (promtool), alert unit
             tests pass, every metric named exists in metrics.rs (or telegram/metrics.rs)
  config     the rendered config file has only keys the node knows, and a
             real node accepts it: started with that file and the pod's
             environment against a local Redis, it must become ready, and
             reach its durable store (a local PostgreSQL set up with the
             rendered user, password and database) or, with none
             configured, answer 503 no_store
"""

import argparse
import base64
import copy
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CHART = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(CHART))
CI = os.path.join(CHART, "ci")
# Kinds validated against their CRD schemas by validate_crds.mjs.
CRD_KINDS = {
    "monitoring.coreos.com/v1/ServiceMonitor",
    "monitoring.coreos.com/v1/PrometheusRule",
    "gateway.networking.k8s.io/v1/HTTPRoute",
}


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def info(msg):
    print(f"    {msg}", flush=True)


def cases(rendered):
    out = []
    for name in sorted(os.listdir(rendered)):
        if name.endswith(".yaml"):
            case = name[: -len(".yaml")]
            with open(os.path.join(rendered, name)) as f:
                docs = [d for d in yaml.safe_load_all(f) if d]
            out.append((case, docs))
    if not out:
        fail(f"nothing rendered in {rendered}")
    return out


def find(docs, kind, name_suffix=""):
    return [d for d in docs if d["kind"] == kind and d["metadata"]["name"].endswith(name_suffix)]


def one(docs, kind, case):
    found = [d for d in docs if d["kind"] == kind]
    if len(found) != 1:
        fail(f"{case}: expected one {kind}, found {len(found)}")
    return found[0]


def deep_merge(base, over):
    out = copy.deepcopy(base)
    for k, v in (over or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def values_for(case):
    with open(os.path.join(CHART, "values.yaml")) as f:
        base = yaml.safe_load(f)
    path = os.path.join(CI, f"{case}.yaml")
    over = {}
    if os.path.exists(path):
        with open(path) as f:
            over = yaml.safe_load(f) or {}
    return deep_merge(base, over)


# ---------------------------------------------------------------- k8s


def cmd_k8s(args):
    import kubernetes_validate
    from kubernetes_validate.utils import SchemaNotFoundError, ValidationError

    crds = []
    for case, docs in cases(args.rendered):
        kinds = {}
        for d in docs:
            key = f"{d['apiVersion']}/{d['kind']}"
            name = f"{case}: {d['kind']}/{d['metadata']['name']}"
            if key in CRD_KINDS:
                crds.append({"source": case, "doc": d})
                continue
            for v in args.versions:
                try:
                    kubernetes_validate.validate(d, v, strict=True)
                except ValidationError as e:
                    path = "/".join(str(p) for p in e.path)
                    fail(f"{name} against Kubernetes {v} (strict): {e.message} at {path}")
                except SchemaNotFoundError as e:
                    fail(f"{name}: no Kubernetes {v} schema for {key} ({e.message}); add it to CRD_KINDS with a validator")
            kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
        summary = ", ".join(f"{k}×{n}" if n > 1 else k for k, n in sorted(kinds.items()))
        info(f"ok   {case}: {summary} (Kubernetes {' and '.join(args.versions)}, strict)")
    if crds:
        env = dict(os.environ, TABULA_NPM_DIR=os.path.abspath(args.npm_dir))
        r = subprocess.run(
            ["node", os.path.join(HERE, "validate_crds.mjs")],
            input=json.dumps(crds),
            text=True,
            capture_output=True,
            env=env,
        )
        for line in r.stdout.splitlines():
            info(line)
        if r.returncode != 0:
            fail(f"custom resources: {r.stderr.strip() or 'see above'}")
        info(
            "note: the CRD schemas of ServiceMonitor, PrometheusRule and HTTPRoute type and "
            "pattern-check every field but do not refuse unknown ones (as the API server "
            "prunes them); `invariants` checks the fields the chart relies on"
        )


# ---------------------------------------------------------------- values


def described_keys(src):
    """`# --` comments of values.yaml: [(dotted path, description)] in file order."""
    out, stack, pending = [], [], None
    for line in src.splitlines():
        s = line.strip()
        if s.startswith("# --"):
            pending = s[4:].strip()
            continue
        if s.startswith("#") or not s:
            continue
        m = re.match(r"^(\s*)([A-Za-z0-9_]+):", line)
        if m:
            ind = len(m.group(1))
            while stack and stack[-1][0] >= ind:
                stack.pop()
            stack.append((ind, m.group(2)))
            if pending is not None:
                out.append((".".join(k for _, k in stack), pending))
        pending = None
    return out


def leaves(v, path=()):
    if isinstance(v, dict) and v:
        for k, x in v.items():
            yield from leaves(x, path + (k,))
    else:
        yield path, v


def schema_at(schema, path):
    """The schema of a value path, or None when the schema does not describe it."""
    s = schema
    for k in path:
        if "properties" in s and k in s["properties"]:
            s = s["properties"][k]
        elif isinstance(s.get("additionalProperties"), dict):
            s = s["additionalProperties"]
        elif s.get("type") == "object" and "additionalProperties" not in s and "properties" not in s:
            return s  # a free-form map (labels, resources, affinity…)
        else:
            return None
    return s


def schema_leaves(s, path=()):
    """Paths of the values the schema requires (optional keys of maps such as
    httpRoute.timeouts are not values of their own)."""
    props = s.get("properties")
    required = s.get("required", [])
    if props and required:
        for k in required:
            yield from schema_leaves(props[k], path + (k,))
    else:
        yield path


def readme_table(src, values):
    rows = ["| Key | Default | Description |", "|---|---|---|"]
    for key, text in described_keys(src):
        v = values
        for k in key.split("."):
            v = v[k]
        default = json.dumps(v, ensure_ascii=False)
        if len(default) > 80:
            default = "see values.yaml"
        default = default.replace("|", "\\|")
        text = text.replace("|", "\\|")
        rows.append(f"| `{key}` | `{default}` | {text} |")
    return "\n".join(rows)


def cmd_values(args):
    import jsonschema

    sys.path.insert(0, HERE)
    import gen_schema

    schema_path = os.path.join(CHART, "values.schema.json")
    with open(schema_path) as f:
        text = f.read()
    if text != gen_schema.render():
        if args.regenerate:
            with open(schema_path, "w") as f:
                f.write(gen_schema.render())
            info("values.schema.json regenerated (tests/gen_schema.py)")
        else:
            fail("helm/tabula/values.schema.json is stale (tests/gen_schema.py): run scripts/test-helm --regenerate")
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    with open(os.path.join(CHART, "values.yaml")) as f:
        src = f.read()
    values = yaml.safe_load(src)
    files = [("values.yaml", values)]
    for name in sorted(os.listdir(CI)):
        with open(os.path.join(CI, name)) as f:
            files.append((f"ci/{name}", yaml.safe_load(f) or {}))
    for name, v in files:
        for path, _ in leaves(v):
            if path and schema_at(schema, path) is None:
                fail(f"{name}: {'.'.join(path)} is not in values.schema.json")
        errors = list(jsonschema.Draft7Validator(schema).iter_errors(deep_merge(values, v)))
        if errors:
            fail(f"{name}: {errors[0].message} at {'.'.join(map(str, errors[0].path))}")
    # No schema entry without a value (the schema describes this chart).
    for path in schema_leaves(schema):
        v = values
        for k in path:
            if not isinstance(v, dict) or k not in v:
                fail(f"values.schema.json describes {'.'.join(path)}, which values.yaml lacks")
            v = v[k]
    # Every value is documented: itself or a documented parent map.
    documented = {k for k, _ in described_keys(src)}
    for path, _ in leaves(values):
        if not any(".".join(path[:i]) in documented for i in range(1, len(path) + 1)):
            fail(f"values.yaml: {'.'.join(path)} has no `# --` description")
    info(f"schema covers every value of values.yaml and {len(files) - 1} ci files; {len(documented)} documented keys")
    readme = os.path.join(CHART, "README.md")
    with open(readme) as f:
        text = f.read()
    begin, end = "<!-- values:begin -->", "<!-- values:end -->"
    if begin not in text or end not in text:
        fail(f"{readme}: no {begin} … {end} section")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    want = f"{head}{begin}\n{readme_table(src, values)}\n{end}{tail}"
    if want != text:
        if args.regenerate:
            with open(readme, "w") as f:
                f.write(want)
            info("README.md values table rewritten")
        else:
            fail("helm/tabula/README.md's values table is stale: run scripts/test-helm --regenerate")
    else:
        info("README.md values table matches values.yaml")


# ---------------------------------------------------------------- invariants


def settings_of(docs, case):
    cm = [d for d in find(docs, "ConfigMap") if "helm.toml" in (d.get("data") or {})]
    if len(cm) != 1:
        fail(f"{case}: expected one ConfigMap with helm.toml")
    return tomllib.loads(cm[0]["data"]["helm.toml"])


def ceil_s(ms):
    return math.ceil(ms / 1000)


def grace_formula(values, toml):
    """The chart's terminationGracePeriodSeconds (chart_drain.rs computes the same)."""
    return (
        values["drain"]["preStopSeconds"]
        + ceil_s(toml["cluster"]["drain_grace_ms"])
        + toml["server"]["shutdown_timeout_secs"]
        + ceil_s(toml["redis"]["timeout_ms"])
        + values["drain"]["marginSeconds"]
    )


def dockerfile_runtime():
    """The last stage of the repository's Dockerfile (the image the chart runs)."""
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        lines = [l.strip() for l in f.read().replace("\\\n", " ").splitlines()]
    stages = [i for i, l in enumerate(lines) if l.upper().startswith("FROM ")]
    return [l for l in lines[stages[-1]:] if l and not l.startswith("#")]


def check_image(values):
    """What the chart assumes about the image holds in the Dockerfile."""
    stage = dockerfile_runtime()
    user = [l.split()[1] for l in stage if l.startswith("USER ")]
    uid = values["podSecurityContext"]["runAsUser"]
    if not user or user[-1].split(":")[0] != str(uid):
        fail(f"Dockerfile runs as {user}, the chart as runAsUser {uid}")
    wanted = {
        "COPY --from=build /bin/sleep /bin/sleep": "drain.preStopMode exec runs /bin/sleep",
        "COPY config/ /app/config/": "the default config",
        "COPY web/ /app/web/": "the Mini App (web.dir = \"web\" from /app)",
        "WORKDIR /app": "the node's working directory",
    }
    for line, why in wanted.items():
        if line not in stage:
            fail(f"Dockerfile's runtime stage lacks `{line}` ({why})")
    if not any(l.startswith("ENTRYPOINT") and "tabula-server" in l for l in stage):
        fail("Dockerfile's runtime stage does not run tabula-server")


def cmd_invariants(args):
    check_image(values_for("defaults-values"))
    info("ok   Dockerfile: non-root uid of podSecurityContext, /bin/sleep, /app/config, /app/web, tabula-server")
    recommended = ["app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
                   "app.kubernetes.io/managed-by", "helm.sh/chart"]
    for case, docs in cases(args.rendered):
        values = values_for(case)
        dep = [d for d in find(docs, "Deployment")]
        if len(dep) != 1:
            fail(f"{case}: expected one Deployment")
        dep = dep[0]
        spec = dep["spec"]
        pod = spec["template"]["spec"]
        (c,) = [c for c in pod["containers"] if c["name"] == "node"]
        toml = settings_of(docs, case)
        for d in docs:
            labels = d["metadata"].get("labels") or {}
            missing = [k for k in recommended if k not in labels]
            if missing:
                fail(f"{case}: {d['kind']}/{d['metadata']['name']} lacks labels {missing}")
        # Rollout: a new pod is ready before an old one drains.
        if spec["strategy"]["rollingUpdate"]["maxUnavailable"] != 0:
            fail(f"{case}: maxUnavailable is not 0")
        # Drain timing.
        pre = c.get("lifecycle", {}).get("preStop")
        want_pre = values["drain"]["preStopSeconds"]
        if want_pre == 0:
            if pre:
                fail(f"{case}: a preStop hook with preStopSeconds 0")
            got_pre = 0
        elif "sleep" in pre:
            got_pre = pre["sleep"]["seconds"]
        else:
            cmd = pre["exec"]["command"]
            if cmd[0] != "/bin/sleep":
                fail(f"{case}: preStop exec is {cmd}")
            got_pre = int(cmd[1])
        if got_pre != want_pre:
            fail(f"{case}: preStop pauses {got_pre} s, values say {want_pre}")
        tgps = pod["terminationGracePeriodSeconds"]
        if tgps != grace_formula(values, toml):
            fail(f"{case}: terminationGracePeriodSeconds {tgps} != formula {grace_formula(values, toml)}")
        floor = got_pre + toml["cluster"]["drain_grace_ms"] / 1000 + toml["server"]["shutdown_timeout_secs"]
        if tgps <= floor:
            fail(f"{case}: terminationGracePeriodSeconds {tgps} leaves no time after preStop + drain ({floor})")
        # Probes on the node's endpoints.
        probes = {"startupProbe": "/healthz", "livenessProbe": "/healthz", "readinessProbe": "/readyz"}
        for probe, path in probes.items():
            got = c[probe]["httpGet"]
            if got["path"] != path or got["port"] != "http":
                fail(f"{case}: {probe} is {got}, want {path} on port http")
        # The port the node listens on is the one the probes and Service use.
        (port,) = [p for p in c["ports"] if p["name"] == "http"]
        if toml["server"]["listen"] != f"0.0.0.0:{port['containerPort']}":
            fail(f"{case}: server.listen {toml['server']['listen']} vs containerPort {port['containerPort']}")
        # Hardened security context.
        psc, csc = pod["securityContext"], c["securityContext"]
        checks = {
            "runAsNonRoot": psc.get("runAsNonRoot") and csc.get("runAsNonRoot", True),
            "readOnlyRootFilesystem": csc.get("readOnlyRootFilesystem"),
            "allowPrivilegeEscalation false": csc.get("allowPrivilegeEscalation") is False,
            "drop ALL": "ALL" in csc.get("capabilities", {}).get("drop", []),
            "seccomp RuntimeDefault": (csc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type") == "RuntimeDefault",
            "no service account token": pod.get("automountServiceAccountToken") is False,
        }
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            fail(f"{case}: security context lacks {bad}")
        # Config and node id from where the node reads them.
        env = {e["name"]: e for e in c["env"]}
        if env["TABULA__CLUSTER__NODE_ID"].get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") != "metadata.name":
            fail(f"{case}: the node id is not the pod name")
        if toml["cluster"]["backplane"] != "redis":
            fail(f"{case}: cluster.backplane is {toml['cluster']['backplane']}")
        mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
        if mounts.get(env["TABULA_CONFIG_DIR"]["value"]) != "config":
            fail(f"{case}: the ConfigMap is not mounted at TABULA_CONFIG_DIR")
        sel = spec["selector"]["matchLabels"]
        for kind in ("Service", "PodDisruptionBudget"):
            for d in find(docs, kind):
                s = d["spec"]["selector"]
                s = s.get("matchLabels", s)
                if s == sel:
                    break
            else:
                if kind == "Service" or values["podDisruptionBudget"]["enabled"]:
                    fail(f"{case}: no {kind} selects the nodes")
        for hpa in find(docs, "HorizontalPodAutoscaler"):
            if hpa["spec"]["scaleTargetRef"]["name"] != dep["metadata"]["name"]:
                fail(f"{case}: the HPA scales {hpa['spec']['scaleTargetRef']}")
            if "replicas" in spec:
                fail(f"{case}: replicas set on an autoscaled Deployment")
            down = hpa["spec"].get("behavior", {}).get("scaleDown", {})
            if down.get("stabilizationWindowSeconds", 300) < 300:
                fail(f"{case}: the HPA scales down faster than the 5-minute default")
        for sm in find(docs, "ServiceMonitor"):
            (ep,) = sm["spec"]["endpoints"]
            if ep["path"] != "/metrics" or ep["port"] != "http":
                fail(f"{case}: ServiceMonitor endpoint {ep}")
            if sm["spec"]["selector"]["matchLabels"] != sel:
                fail(f"{case}: the ServiceMonitor does not select the nodes' Service")
        for ing in find(docs, "Ingress"):
            for rule in ing["spec"]["rules"]:
                for p in rule["http"]["paths"]:
                    if p["backend"]["service"]["name"] != dep["metadata"]["name"]:
                        fail(f"{case}: the Ingress sends {p['path']} elsewhere")
        # Client addresses: behind the chart's own Ingress or HTTPRoute the
        # node reads one X-Forwarded-For hop (else every player would count
        # as the proxy's address for the per-address caps and quotas).
        hops = values["config"]["quotas"]["trusted_proxy_hops"]
        if hops is None:
            hops = 1 if (values["ingress"]["enabled"] or values["httpRoute"]["enabled"]) else 0
        if toml["quotas"]["trusted_proxy_hops"] != hops:
            fail(f"{case}: quotas.trusted_proxy_hops rendered {toml['quotas']['trusted_proxy_hops']}, want {hops}")
        for sts in find(docs, "StatefulSet"):
            if sts["spec"]["selector"]["matchLabels"].get("app.kubernetes.io/component") != "dev-redis":
                continue
            (rc,) = sts["spec"]["template"]["spec"]["containers"]
            a = rc["args"]
            if a[a.index("--appendonly") + 1] != "yes":
                fail(f"{case}: the development Redis runs without AOF")
        store = check_store(case, values, docs, dep, c, toml)
        info(f"ok   {case}: grace {tgps} s = preStop {got_pre} + drain {ceil_s(toml['cluster']['drain_grace_ms'])} "
             f"+ shutdown {toml['server']['shutdown_timeout_secs']} + redis {ceil_s(toml['redis']['timeout_ms'])} "
             f"+ margin {values['drain']['marginSeconds']}; probes, security, rollout, labels; store: {store}")


def store_mode(values):
    """Where the chart must take the node's store URL from (templates/_helpers.tpl, tabula.storeMode)."""
    pg = values["externalPostgres"]
    if values["devPostgres"]["enabled"]:
        return "dev"
    if pg["existingSecret"] and pg["existingSecretUrlKey"]:
        return "secretUrl"
    if pg["host"] or pg["url"]:
        return "inline" if pg["password"] else "plain"
    return "none"


def secret_data(docs, name):
    for s in find(docs, "Secret"):
        if s["metadata"]["name"] == name:
            return {k: base64.b64decode(v).decode() for k, v in (s.get("data") or {}).items()}
    return None


def env_from(env, name, case):
    """(Secret, key) an env var is read from."""
    ref = env.get(name, {}).get("valueFrom", {}).get("secretKeyRef")
    if not ref:
        fail(f"{case}: {name} is not read from a Secret: {env.get(name)}")
    return ref["name"], ref["key"]


def check_store_url(case, url, user, password, host, port, database):
    """A rendered store URL: PostgreSQL, these credentials (URL-decoded), this server."""
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("postgres", "postgresql"):
        fail(f"{case}: the store URL's scheme is {u.scheme!r}, not postgres")
    got = (urllib.parse.unquote(u.username or ""),
           None if u.password is None else urllib.parse.unquote(u.password),
           u.hostname, u.port or 5432, urllib.parse.unquote(u.path.lstrip("/")))
    want = (user, password, host, port, database)
    if got != want:
        fail(f"{case}: the store URL decodes to (user, password, host, port, database) {got}, want {want}")


def check_store(case, values, docs, dep, c, toml):
    """The durable store: its URL only ever from a Secret (or empty), as the values say."""
    env = {e["name"]: e for e in c["env"]}
    names = [e["name"] for e in c["env"]]
    if names.count("TABULA__STORE__URL") != 1:
        fail(f"{case}: TABULA__STORE__URL set {names.count('TABULA__STORE__URL')} times")
    if "url" in toml.get("store", {}):
        fail(f"{case}: store.url is in the ConfigMap")
    for cm in find(docs, "ConfigMap"):
        if "postgres://" in json.dumps(cm.get("data") or {}) or "postgresql://" in json.dumps(cm.get("data") or {}):
            fail(f"{case}: ConfigMap/{cm['metadata']['name']} holds a PostgreSQL URL")
    for name, want in values["config"]["store"].items():
        if toml["store"][name] != want:
            fail(f"{case}: store.{name} rendered {toml['store'][name]}, values say {want}")
    fullname = dep["metadata"]["name"]
    pg = values["externalPostgres"]
    mode = store_mode(values)
    url = env["TABULA__STORE__URL"]
    if mode == "none":
        if url.get("value") != "" or "valueFrom" in url:
            fail(f"{case}: no store configured, but TABULA__STORE__URL is {url}")
        return "none (TABULA__STORE__URL empty)"
    if mode == "secretUrl":
        if env_from(env, "TABULA__STORE__URL", case) != (pg["existingSecret"], pg["existingSecretUrlKey"]):
            fail(f"{case}: TABULA__STORE__URL not from {pg['existingSecret']}/{pg['existingSecretUrlKey']}")
        return f"URL from Secret {pg['existingSecret']} (existingSecretUrlKey)"
    if mode in ("inline", "plain"):
        if pg["url"]:
            u = urllib.parse.urlsplit(pg["url"])
            host, port, database = u.hostname, u.port or 5432, urllib.parse.unquote(u.path.lstrip("/"))
        else:
            host, port, database = pg["host"], pg["port"], pg["database"]
        if mode == "inline":
            if env_from(env, "TABULA__STORE__URL", case) != (fullname, "store-url"):
                fail(f"{case}: TABULA__STORE__URL not from the chart's Secret {fullname}/store-url")
            data = secret_data(docs, fullname) or fail(f"{case}: no Secret {fullname}")
            check_store_url(case, data["store-url"], pg["username"], pg["password"], host, port, database)
            return f"URL with an inline password (URL-encoded) from the chart's Secret {fullname}"
        value = url.get("value") or fail(f"{case}: TABULA__STORE__URL has no value")
        if pg["existingSecret"] and pg["existingSecretPasswordKey"]:
            if env_from(env, "STORE_PASSWORD", case) != (pg["existingSecret"], pg["existingSecretPasswordKey"]):
                fail(f"{case}: STORE_PASSWORD not from {pg['existingSecret']}/{pg['existingSecretPasswordKey']}")
            if names.index("STORE_PASSWORD") > names.index("TABULA__STORE__URL"):
                fail(f"{case}: STORE_PASSWORD comes after the URL that refers to it")
            check_store_url(case, value.replace("$(STORE_PASSWORD)", "PW"), pg["username"], "PW", host, port, database)
            return f"URL with $(STORE_PASSWORD) from Secret {pg['existingSecret']}"
        check_store_url(case, value, pg["username"], None, host, port, database)
        return "URL without a password"
    # devPostgres: a StatefulSet of the official image, its password and the
    # nodes' URL in its own Secret, reachable only from the nodes.
    d = values["devPostgres"]
    name = f"{fullname}-postgres"
    if env_from(env, "TABULA__STORE__URL", case) != (name, "url"):
        fail(f"{case}: TABULA__STORE__URL not from Secret {name}/url")
    data = secret_data(docs, name) or fail(f"{case}: no Secret {name}")
    if d["password"] and data["password"] != d["password"]:
        fail(f"{case}: Secret {name} does not hold devPostgres.password")
    if len(data["password"]) < 16:
        fail(f"{case}: the development PostgreSQL's password is {len(data['password'])} characters")
    check_store_url(case, data["url"], d["username"], data["password"], name, 5432, d["database"])
    stss = [s for s in find(docs, "StatefulSet")
            if s["spec"]["selector"]["matchLabels"].get("app.kubernetes.io/component") == "dev-postgres"]
    if len(stss) != 1:
        fail(f"{case}: devPostgres.enabled but {len(stss)} PostgreSQL StatefulSets")
    sts = stss[0]
    pod = sts["spec"]["template"]["spec"]
    (pc,) = pod["containers"]
    if pc["image"] != f"{d['image']['repository']}:{d['image']['tag']}" or not d["image"]["repository"].endswith("library/postgres") \
            or d["image"]["tag"] in ("", "latest"):
        fail(f"{case}: the development PostgreSQL runs {pc['image']}, not a pinned official image")
    penv = {e["name"]: e for e in pc["env"]}
    if env_from(penv, "POSTGRES_PASSWORD", case) != (name, "password"):
        fail(f"{case}: POSTGRES_PASSWORD not from Secret {name}/password")
    if penv["POSTGRES_USER"]["value"] != d["username"] or penv["POSTGRES_DB"]["value"] != d["database"]:
        fail(f"{case}: the development PostgreSQL creates another user or database than the URL names")
    if "pg_isready" not in " ".join(pc["readinessProbe"]["exec"]["command"]):
        fail(f"{case}: the development PostgreSQL's readiness is not pg_isready")
    psc, csc = pod["securityContext"], pc["securityContext"]
    if not (psc.get("runAsNonRoot") and psc.get("runAsUser") == 999 and csc.get("readOnlyRootFilesystem")
            and csc.get("allowPrivilegeEscalation") is False and "ALL" in csc["capabilities"]["drop"]
            and psc.get("seccompProfile", {}).get("type") == "RuntimeDefault" and pod.get("automountServiceAccountToken") is False):
        fail(f"{case}: the development PostgreSQL's security context is not hardened like the Redis one")
    mounts = {m["mountPath"] for m in pc["volumeMounts"]}
    pgdata = penv["PGDATA"]["value"]
    if not any(pgdata.startswith(m + "/") for m in mounts) or "/var/run/postgresql" not in mounts:
        fail(f"{case}: PGDATA {pgdata} or the socket directory is not on a volume (read-only root filesystem)")
    claims = sts["spec"].get("volumeClaimTemplates") or []
    if bool(claims) != d["persistence"]["enabled"]:
        fail(f"{case}: devPostgres.persistence.enabled {d['persistence']['enabled']} but {len(claims)} volume claims")
    a = pc["args"]
    max_conn = int(a[a.index("-c") + 1].split("=")[1])
    nodes = values["autoscaling"]["maxReplicas"] if values["autoscaling"]["enabled"] else values["replicaCount"]
    surge = values["updateStrategy"]["maxSurge"]
    surge = math.ceil(nodes * int(surge[:-1]) / 100) if isinstance(surge, str) else surge
    if (nodes + surge) * values["config"]["store"]["max_connections"] > max_conn - 3:
        fail(f"{case}: {nodes + surge} nodes' pools do not fit in the development PostgreSQL's max_connections {max_conn}")
    sel = sts["spec"]["selector"]["matchLabels"]
    svcs = [s for s in find(docs, "Service") if s["metadata"]["name"] == name]
    if not svcs or svcs[0]["spec"]["selector"] != sel or svcs[0]["spec"]["ports"][0]["port"] != 5432:
        fail(f"{case}: Service {name} does not reach the development PostgreSQL on 5432")
    nps = [n for n in find(docs, "NetworkPolicy") if n["spec"]["podSelector"]["matchLabels"] == sel]
    node_sel = dep["spec"]["selector"]["matchLabels"]
    if len(nps) != 1 or [f["podSelector"]["matchLabels"] for r in nps[0]["spec"]["ingress"] for f in r["from"]] != [node_sel]:
        fail(f"{case}: the development PostgreSQL is not reachable from the Tabula pods only (NetworkPolicy)")
    return (f"development PostgreSQL {pc['image']} ({'PVC' if claims else 'emptyDir'}), "
            f"URL from Secret {name} ({'given' if d['password'] else 'generated'} password)")


# ---------------------------------------------------------------- rules


def metric_names():
    src = ""
    # The node's metrics, and the Telegram bot's (registered with them).
    for path in ("crates/tabula-server/src/metrics.rs", "crates/tabula-server/src/telegram/metrics.rs"):
        with open(os.path.join(ROOT, path)) as f:
            src += f.read()
    out = {}
    chunks = src.split('"tabula_')[1:]
    for chunk in chunks:
        name = "tabula_" + chunk.split('"', 1)[0]
        m = re.search(r'&\[((?:"[a-z_]+",?\s*)+)\]', chunk)
        out[name] = set(re.findall(r'"([a-z_]+)"', m.group(1))) if m else set()
    if len(out) < 10:
        fail(f"found only {len(out)} metrics in metrics.rs")
    return out


TARGET_LABELS = {"namespace", "job", "pod", "instance", "service", "endpoint", "container"}


def check_metrics(expr, where, metrics):
    used = set()
    for m in re.finditer(r"\b(tabula_[a-z_]+)(\{[^}]*\})?", expr):
        name = m.group(1)
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if base not in metrics:
            fail(f"{where}: {name} is not a metric of the node (metrics.rs)")
        allowed = metrics[base] | TARGET_LABELS | ({"le"} if name.endswith("_bucket") else set())
        for label in re.findall(r"([a-z_]+)\s*(?:=~|!~|!=|=)", m.group(2) or ""):
            if label not in allowed:
                fail(f"{where}: {name} has no label {label}")
        used.add(base)
    for by in re.findall(r"by \(([^)]*)\)", expr):
        for label in [x.strip() for x in by.split(",") if x.strip()]:
            names = re.findall(r"\b(tabula_[a-z_]+)", expr)
            ok = label in TARGET_LABELS or label == "le" or any(
                label in metrics.get(re.sub(r"_(bucket|sum|count)$", "", n), set()) for n in names)
            if not ok:
                fail(f"{where}: groups by {label}, a label none of its metrics has")
    return used


def cmd_rules(args):
    metrics = metric_names()
    work = args.work
    os.makedirs(work, exist_ok=True)
    rules_found = False
    for case, docs in cases(args.rendered):
        for pr in find(docs, "PrometheusRule"):
            rules_found = True
            path = os.path.join(work, f"{case}.rules.yaml")
            with open(path, "w") as f:
                yaml.safe_dump({"groups": pr["spec"]["groups"]}, f, sort_keys=False)
            r = subprocess.run([args.promtool, "check", "rules", path], capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"{case}: promtool check rules: {r.stdout}{r.stderr}")
            names = []
            for g in pr["spec"]["groups"]:
                for rule in g["rules"]:
                    check_metrics(rule["expr"], f"{case}: alert {rule['alert']}", metrics)
                    names.append(rule["alert"])
            info(f"ok   {case}: promtool check rules: {', '.join(names)}")
            if case == "monitoring-values":
                # The unit tests are written for this render (release and namespace `tabula`).
                shutil.copy(path, os.path.join(work, "tabula.rules.yaml"))
                shutil.copy(os.path.join(HERE, "alerts.test.yaml"), os.path.join(work, "alerts.test.yaml"))
                r = subprocess.run([args.promtool, "test", "rules", os.path.join(work, "alerts.test.yaml")],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    fail(f"promtool test rules:\n{r.stdout}{r.stderr}")
                with open(os.path.join(HERE, "alerts.test.yaml")) as f:
                    tests = yaml.safe_load(f)["tests"]
                info(f"ok   promtool test rules: {len(tests)} alert unit tests (helm/tabula/tests/alerts.test.yaml)")
                tested = {a["alertname"] for t in tests for a in t.get("alert_rule_test", [])}
                if set(names) - tested:
                    fail(f"alerts without a unit test: {sorted(set(names) - tested)}")
    if not rules_found:
        fail("no render has a PrometheusRule")
    # The dashboard: every query parses, names real metrics, and every metric is on it.
    with open(os.path.join(CHART, "dashboards/tabula.json")) as f:
        dash = json.load(f)
    exprs = []

    def walk(p):
        for t in p.get("targets", []):
            exprs.append((p.get("title", "?"), t["expr"]))
        for sub in p.get("panels", []):
            walk(sub)

    for p in dash["panels"]:
        walk(p)
    for v in dash["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict) and q.get("query", "").startswith("label_values("):
            inner = re.match(r"label_values\((.*),\s*[a-z_]+\)$", q["query"]).group(1)
            exprs.append((f"variable {v['name']}", inner))
    subst = {"$__rate_interval": "5m", "$namespace": "tabula", "$job": "tabula", "$pod": ".*"}
    recs = []
    used = set()
    for i, (title, e) in enumerate(exprs):
        for k, v in subst.items():
            e = e.replace(k, v)
        if "$" in e:
            fail(f"dashboard panel {title}: unknown variable in {e}")
        used |= check_metrics(e, f"dashboard panel {title}", metrics)
        recs.append({"record": f"dashboard:query_{i}", "expr": e})
    path = os.path.join(work, "dashboard.rules.yaml")
    with open(path, "w") as f:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": recs}]}, f, sort_keys=False)
    r = subprocess.run([args.promtool, "check", "rules", path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"dashboard queries: promtool check rules: {r.stdout}{r.stderr}")
    if set(metrics) - used:
        fail(f"metrics not on the dashboard: {sorted(set(metrics) - used)}")
    info(f"ok   dashboard: {len(exprs)} queries parse (promtool), every one of the node's {len(metrics)} metrics is shown")


# ---------------------------------------------------------------- config


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def toml_type(v):
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return type(v).__name__


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except OSError:
        return None, ""


class LocalRedis:
    """Our own redis-server on a free port, with the credentials and mode the render asks for."""

    def __init__(self, workdir, user, password, cluster):
        self.dir = tempfile.mkdtemp(dir=workdir, prefix="redis-")
        # A free port can be taken between our look and redis-server's bind
        # (other tests start servers too): try again on another.
        for _ in range(5):
            self.port = free_port()
            cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                   "--appendonly", "no", "--dir", self.dir]
            if cluster:
                cmd += ["--cluster-enabled", "yes", "--cluster-config-file", os.path.join(self.dir, "nodes.conf")]
            conf = os.path.join(self.dir, "nodes.conf")
            if os.path.exists(conf):
                os.remove(conf)
            self.log = os.path.join(self.dir, "redis.log")
            with open(self.log, "w") as log:
                self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            cli = ["redis-cli", "-p", str(self.port)]
            deadline = time.time() + 20
            while b"PONG" not in subprocess.run(cli + ["ping"], capture_output=True).stdout:
                if self.proc.poll() is not None or time.time() > deadline:
                    break
                time.sleep(0.05)
            else:
                break
            self.proc.kill()
            self.proc.wait()
        else:
            fail("redis-server did not start (5 tries):\n" + open(self.log).read()[-2000:])
        if cluster:
            # A one-master Redis Cluster: every slot on this instance.
            subprocess.run(cli + ["cluster", "addslotsrange", "0", "16383"], capture_output=True, check=True)
            while b"cluster_state:ok" not in subprocess.run(cli + ["cluster", "info"], capture_output=True).stdout:
                if time.time() > deadline:
                    self.stop()
                    fail("the one-node Redis Cluster did not form")
                time.sleep(0.05)
        # Credentials last (each argument its own RESP string: any character works).
        if password is not None:
            if user and user != "default":
                acl = ["acl", "setuser", user, "on", f">{password}", "~*", "&*", "+@all"]
                subprocess.run(cli + acl, capture_output=True, check=True)
                subprocess.run(cli + ["acl", "setuser", "default", "off"], capture_output=True, check=True)
            else:
                subprocess.run(cli + ["config", "set", "requirepass", password], capture_output=True, check=True)

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def pg_bin():
    """The directory of PostgreSQL's server binaries (Debian's `postgresql` package), or None."""
    env = os.environ.get("TABULA_PG_BIN")
    if env and os.path.exists(os.path.join(env, "initdb")):
        return env
    root = "/usr/lib/postgresql"
    if os.path.isdir(root):
        versions = sorted((d for d in os.listdir(root) if d.isdigit()), key=int, reverse=True)
        for v in versions:
            b = os.path.join(root, v, "bin")
            if os.path.exists(os.path.join(b, "initdb")):
                return b
    initdb = shutil.which("initdb")
    return os.path.dirname(os.path.realpath(initdb)) if initdb else None


class LocalPostgres:
    """Our own PostgreSQL on a free port of 127.0.0.1, password authentication
    (scram-sha-256) over TCP, with the user, password and database the render
    gives the node (it refuses to run as root: as `postgres` then)."""

    def __init__(self, user, password, database):
        self.bin = pg_bin()
        if not self.bin:
            fail("PostgreSQL's server binaries (initdb, pg_ctl) not found: install Debian's postgresql package")
        self.run_as = None
        if os.geteuid() == 0:
            self.run_as = "postgres"
        # Not under the run's private work directory: the server's user must reach it.
        self.dir = tempfile.mkdtemp(prefix="tabula-chart-pg-")
        self.data = os.path.join(self.dir, "data")
        self.sock = os.path.join(self.dir, "sock")
        self.log = os.path.join(self.dir, "server.log")
        os.mkdir(self.sock)
        if self.run_as:
            for d in (self.dir, self.sock):
                shutil.chown(d, self.run_as, self.run_as)
        self.port = None
        self.run("initdb", "-D", self.data, "-U", "postgres", "--auth-local=trust",
                 "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C")
        for _ in range(5):
            port = free_port()
            opts = f"-p {port} -k {self.sock} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
            r = self.run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o", opts, "start", check=False)
            if r.returncode == 0:
                self.port = port
                break
        else:
            self.stop()
            fail("PostgreSQL did not start (5 tries):\n" + self.log_tail())
        # Each value a psql variable: any character works (quoted by psql).
        sql = 'CREATE ROLE :"u" LOGIN PASSWORD :\'pw\';\nCREATE DATABASE :"db" OWNER :"u";\n'
        r = self.run("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.sock, "-p", str(self.port),
                     "-U", "postgres", "-d", "postgres", "-v", f"u={user}", "-v", f"pw={password}",
                     "-v", f"db={database}", stdin=sql, check=False)
        if r.returncode != 0:
            self.stop()
            fail(f"PostgreSQL: role {user!r} and database {database!r} not created: {r.stdout}{r.stderr}")

    def run(self, program, *args, stdin=None, check=True):
        cmd = [os.path.join(self.bin, program), *args]
        if self.run_as:
            cmd = ["runuser", "-u", self.run_as, "--", *cmd]
        r = subprocess.run(cmd, cwd=self.dir, input=stdin, capture_output=True, text=True)
        if check and r.returncode != 0:
            self.stop()
            fail(f"PostgreSQL: {program} failed: {r.stdout}{r.stderr}")
        return r

    def log_tail(self):
        try:
            return open(self.log).read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


# Stand-ins for Secrets that exist in the cluster, not in the render.
DUMMY = {
    "session-secret": "an-existing-session-secret-of-32-bytes-or-more",
    "bot-token": "123456789:existing-secret-bot-token",
    "password": "existing-secret-redis-password",
}


def resolve_env(docs, container, case, redis_for, store_for):
    """The container's environment as the kubelet would give it."""
    secrets = {}
    for s in find(docs, "Secret"):
        secrets[s["metadata"]["name"]] = {k: base64.b64decode(v).decode() for k, v in (s.get("data") or {}).items()}
    env = {}
    external = []
    for e in container["env"]:
        name = e["name"]
        if "value" in e:
            # $(VAR) refers to variables defined earlier in the list.
            env[name] = re.sub(r"\$\(([A-Za-z0-9_]+)\)", lambda m: env.get(m.group(1), m.group(0)), e["value"])
            continue
        src = e["valueFrom"]
        if "fieldRef" in src:
            env[name] = {"metadata.name": f"{case}-0", "metadata.namespace": "tabula"}[src["fieldRef"]["fieldPath"]]
        elif "secretKeyRef" in src:
            ref = src["secretKeyRef"]
            if ref["name"] in secrets:
                if ref["key"] not in secrets[ref["name"]]:
                    fail(f"{case}: {name} reads key {ref['key']} that Secret {ref['name']} lacks")
                env[name] = secrets[ref["name"]][ref["key"]]
            elif name in ("TABULA__REDIS__URL", "TABULA__REDIS__URLS"):
                env[name] = redis_for(None)
                external.append(f"{name} from Secret {ref['name']}")
            elif name == "TABULA__STORE__URL":
                env[name] = store_for(None)
                external.append(f"{name} from Secret {ref['name']}")
            else:
                env[name] = DUMMY.get(ref["key"], f"dummy-{ref['key']}")
                external.append(f"{name} from Secret {ref['name']}")
        else:
            fail(f"{case}: {name} has an unsupported source {src}")
    return env, external


def cmd_config(args):
    with open(os.path.join(ROOT, "config/default.toml"), "rb") as f:
        defaults = tomllib.load(f)
    workdir = tempfile.mkdtemp(prefix="tabula-chart-config-")
    try:
        for case, docs in cases(args.rendered):
            toml = settings_of(docs, case)
            # 1. Only keys the node knows, each of the type of its default.
            for section, keys in toml.items():
                if section not in defaults:
                    fail(f"{case}: [{section}] is not a section of config/default.toml")
                for k, v in keys.items():
                    if k not in defaults[section]:
                        fail(f"{case}: {section}.{k} is not a key of config/default.toml")
                    if toml_type(v) != toml_type(defaults[section][k]):
                        fail(f"{case}: {section}.{k} is a {toml_type(v)}, the node's default a {toml_type(defaults[section][k])}")
            (dep,) = find(docs, "Deployment")
            (c,) = [c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] == "node"]
            env_names = {e["name"] for e in c["env"]}
            unset = [f"{s}.{k}" for s, ks in defaults.items() for k in ks
                     if k not in toml.get(s, {}) and f"TABULA__{s.upper()}__{k.upper()}" not in env_names]
            # 2. A real node with this file and this environment, against a local Redis.
            redis = []

            def redis_for(url, _redis=redis, _toml=toml):
                """A local Redis standing in for `url` (None: credentials unknown)."""
                user, password = None, None
                if url:
                    u = urllib.parse.urlsplit(url)
                    user = urllib.parse.unquote(u.username) if u.username else None
                    password = urllib.parse.unquote(u.password) if u.password is not None else None
                if not _redis:
                    _redis.append(LocalRedis(workdir, user, password, _toml["redis"]["cluster"]))
                r = _redis[0]
                auth = ""
                if password is not None:
                    auth = f"{urllib.parse.quote(user or '', safe='')}:{urllib.parse.quote(password, safe='')}@"
                return f"redis://{auth}127.0.0.1:{r.port}"

            store = []

            def store_for(url, _store=store):
                """A local PostgreSQL standing in for `url` (None: a URL in a Secret not rendered)."""
                user, password, database, query = "tabula", "stand-in-password", "tabula", ""
                if url:
                    u = urllib.parse.urlsplit(url)
                    if u.password is None:
                        fail(f"{case}: the store URL has no password; the stand-in PostgreSQL asks for one")
                    user = urllib.parse.unquote(u.username or "")
                    password = urllib.parse.unquote(u.password)
                    database = urllib.parse.unquote(u.path.lstrip("/"))
                    query = f"?{u.query}" if u.query else ""
                if not _store:
                    _store.append(LocalPostgres(user, password, database))
                q = urllib.parse.quote
                return (f"postgres://{q(user, safe='')}:{q(password, safe='')}@127.0.0.1:{_store[0].port}/"
                        f"{q(database, safe='')}{query}")

            env, external = resolve_env(docs, c, case, redis_for, store_for)
            for name in ("TABULA__REDIS__URL", "TABULA__REDIS__URLS"):
                if name in env and "127.0.0.1" not in env[name]:
                    urls = env[name].split(",")
                    env[name] = ",".join(redis_for(u) for u in urls)
            if env.get("TABULA__STORE__URL") and "@127.0.0.1:" not in env["TABULA__STORE__URL"]:
                env["TABULA__STORE__URL"] = store_for(env["TABULA__STORE__URL"])
            conf = os.path.join(workdir, case)
            os.makedirs(conf, exist_ok=True)
            with open(os.path.join(conf, f"{env['TABULA_ENV']}.toml"), "w") as f:
                f.write(settings_of_text(docs))
            port = free_port()
            run_env = {k: v for k, v in os.environ.items() if not k.startswith("TABULA")}
            run_env.update(env)
            run_env["TABULA_CONFIG_DIR"] = conf
            # Only the address changes: the pod's 0.0.0.0:8080 may be taken here.
            run_env["TABULA__SERVER__LISTEN"] = f"127.0.0.1:{port}"
            run_env.pop("RUST_LOG", None)
            log = os.path.join(workdir, f"{case}.log")
            with open(log, "w") as lf:
                proc = subprocess.Popen([os.path.abspath(args.binary)], cwd=workdir, env=run_env, stdout=lf, stderr=subprocess.STDOUT)
            try:
                deadline = time.time() + 20
                while True:
                    if proc.poll() is not None:
                        fail(f"{case}: the node refused the rendered configuration (exit {proc.returncode}):\n"
                             + open(log).read()[-3000:])
                    status, _ = http_status(f"http://127.0.0.1:{port}/readyz")
                    if status == 200:
                        break
                    if time.time() > deadline:
                        fail(f"{case}: the node did not become ready:\n" + open(log).read()[-3000:])
                    time.sleep(0.1)
                status, body = http_status(f"http://127.0.0.1:{port}/metrics")
                if status != 200 or "tabula_connections" not in body:
                    fail(f"{case}: /metrics answered {status}")
                # The durable store as configured: none (503 no_store), or the
                # stand-in PostgreSQL reached with the rendered credentials.
                board = f"http://127.0.0.1:{port}/api/leaderboards/backgammon"
                if env["TABULA__STORE__URL"] == "":
                    status, body = http_status(board)
                    if status != 503 or "no_store" not in body:
                        fail(f"{case}: without a store the leaderboard answered {status} {body[:200]!r}, not 503 no_store")
                else:
                    deadline = time.time() + 30
                    while (status := http_status(board)[0]) != 200:
                        if proc.poll() is not None or time.time() > deadline:
                            fail(f"{case}: the node did not reach its durable store (leaderboard: {status}):\n"
                                 + open(log).read()[-3000:] + "\n" + store[0].log_tail())
                        time.sleep(0.2)
                # The node must have read the file: its log format is the rendered one.
                first = open(log).readline().strip()
                is_json = first.startswith("{")
                if is_json != (toml["log"]["format"] == "json"):
                    fail(f"{case}: log.format {toml['log']['format']} but the node logged {first[:80]!r}")
                proc.send_signal(signal.SIGTERM)
                limit = dep["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
                try:
                    code = proc.wait(timeout=limit)
                except subprocess.TimeoutExpired:
                    fail(f"{case}: the node did not exit within terminationGracePeriodSeconds ({limit} s)")
                if code != 0:
                    fail(f"{case}: the node exited {code} after SIGTERM:\n" + open(log).read()[-3000:])
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                for r in redis:
                    r.stop()
                for pg in store:
                    pg.stop()
            mode = "Redis Cluster" if toml["redis"]["cluster"] else "Redis"
            creds = " with credentials" if any("@" in env.get(n, "") for n in ("TABULA__REDIS__URL", "TABULA__REDIS__URLS")) else ""
            if store:
                creds += ", reached a local PostgreSQL with the rendered credentials"
            elif env.get("TABULA__STORE__URL") == "":
                creds += ", no durable store (503 no_store)"
            note = f"; stand-ins for {', '.join(external)}" if external else ""
            info(f"ok   {case}: {sum(len(k) for k in toml.values())} keys known to the node; ready on a local "
                 f"{mode}{creds}, exit 0 on SIGTERM{note}")
            if unset:
                info(f"     node defaults kept (not set by the chart): {', '.join(unset)}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def settings_of_text(docs):
    cm = [d for d in find(docs, "ConfigMap") if "helm.toml" in (d.get("data") or {})]
    return cm[0]["data"]["helm.toml"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("k8s", "values", "invariants", "rules", "config"):
        s = sub.add_parser(name)
        s.add_argument("--rendered", default=os.path.join(ROOT, "target/helm/rendered"))
        if name == "k8s":
            s.add_argument("--versions", nargs="+", required=True)
            s.add_argument("--npm-dir", required=True)
        if name == "values":
            s.add_argument("--regenerate", action="store_true")
        if name == "rules":
            s.add_argument("--promtool", required=True)
            s.add_argument("--work", default=os.path.join(ROOT, "target/helm/rules"))
        if name == "config":
            s.add_argument("--binary", required=True)
    args = p.parse_args()
    globals()[f"cmd_{args.cmd}"](args)


if __name__ == "__main__":
    main()
