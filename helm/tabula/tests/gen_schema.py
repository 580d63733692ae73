#!/usr/bin/env python3
"""Builds values.schema.json from values.yaml: the structure comes from
values.yaml, the descriptions from its `# --` comments, and the types,
bounds, enums and free-form maps from the tables below (edit those).
`scripts/test-helm --regenerate` rewrites the file; scripts/test-helm fails
when it is stale."""

import json
import os
import re

import yaml

CHART = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Maps whose keys are the user's (labels, resources…): objects, not checked inside.
FREE = {'commonLabels', 'serviceAccount.annotations', 'podAnnotations', 'podLabels', 'resources', 'podSecurityContext',
        'securityContext', 'nodeSelector', 'affinity', 'service.annotations', 'ingress.annotations',
        'httpRoute.annotations', 'devRedis.resources', 'devPostgres.resources', 'metrics.serviceMonitor.labels', 'metrics.prometheusRule.labels',
        'metrics.prometheusRule.alertLabels', 'metrics.dashboard.labels', 'metrics.dashboard.annotations',
        'autoscaling.behavior', 'extraConfig', 'httpRoute.timeouts'}
STRMAP = {'commonLabels', 'serviceAccount.annotations', 'podAnnotations', 'podLabels', 'nodeSelector', 'service.annotations',
          'ingress.annotations', 'httpRoute.annotations', 'metrics.serviceMonitor.labels', 'metrics.prometheusRule.labels',
          'metrics.prometheusRule.alertLabels', 'metrics.dashboard.labels', 'metrics.dashboard.annotations'}
# Types, bounds and enums by value path (the rest is typed from its default).
duration = {"type": "string", "pattern": "^([0-9]+(ms|s|m|h))+$"}
intOrPercent = {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+%$"}]}
O = {
 'replicaCount': {"type": "integer", "minimum": 1},
 'image.digest': {"type": "string", "pattern": "^(sha256:[a-f0-9]{64})?$"},
 'image.pullPolicy': {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]},
 'devRedis.image.pullPolicy': {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]},
 'image.repository': {"type": "string", "minLength": 1},
 'imagePullSecrets': {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}}, "additionalProperties": False}},
 'tolerations': {"type": "array", "items": {"type": "object"}},
 'extraEnv': {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}}}},
 'revisionHistoryLimit': {"type": "integer", "minimum": 0},
 'minReadySeconds': {"type": "integer", "minimum": 0},
 'updateStrategy.maxSurge': intOrPercent,
 'updateStrategy.maxUnavailable': intOrPercent,
 'containerPort': {"type": "integer", "minimum": 1, "maximum": 65535},
 'drain.preStopSeconds': {"type": "integer", "minimum": 0, "maximum": 600},
 'drain.preStopMode': {"type": "string", "enum": ["sleep", "exec"]},
 'drain.marginSeconds': {"type": "integer", "minimum": 0},
 'podAntiAffinityPreset': {"type": "string", "enum": ["soft", "hard", "none"]},
 'topologySpread.maxSkew': {"type": "integer", "minimum": 1},
 'topologySpread.zoneWhenUnsatisfiable': {"type": "string", "enum": ["ScheduleAnyway", "DoNotSchedule"]},
 'topologySpread.hostnameWhenUnsatisfiable': {"type": "string", "enum": ["ScheduleAnyway", "DoNotSchedule"]},
 'service.type': {"type": "string", "enum": ["ClusterIP", "NodePort", "LoadBalancer"]},
 'service.port': {"type": "integer", "minimum": 1, "maximum": 65535},
 'ingress.hosts': {"type": "array", "items": {"type": "object", "required": ["host", "paths"], "additionalProperties": False, "properties": {
     "host": {"type": "string"},
     "paths": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["path", "pathType"], "additionalProperties": False, "properties": {
         "path": {"type": "string", "pattern": "^/"}, "pathType": {"type": "string", "enum": ["Prefix", "Exact", "ImplementationSpecific"]}}}}}}},
 'ingress.tls': {"type": "array", "items": {"type": "object", "additionalProperties": False, "properties": {
     "secretName": {"type": "string"}, "hosts": {"type": "array", "items": {"type": "string"}}}}},
 'httpRoute.parentRefs': {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["name"], "additionalProperties": False, "properties": {
     "group": {"type": "string"}, "kind": {"type": "string"}, "name": {"type": "string", "minLength": 1}, "namespace": {"type": "string"},
     "sectionName": {"type": "string"}, "port": {"type": "integer", "minimum": 1, "maximum": 65535}}}},
 'httpRoute.hostnames': {"type": "array", "items": {"type": "string"}},
 'httpRoute.timeouts': {"type": "object", "additionalProperties": False, "properties": {"request": duration, "backendRequest": duration}},
 'auth.botToken': {"type": "string", "pattern": "^([0-9]+:.+)?$"},
 'auth.sessionSecret': {"type": "string", "pattern": "^(.{32,})?$"},
 'externalRedis.port': {"type": "integer", "minimum": 1, "maximum": 65535},
 'externalRedis.url': {"type": "string", "pattern": "^(redis://[^@]+)?$"},
 'externalRedis.cluster.nodes': {"type": "array", "items": {"type": "string", "pattern": "^[^/@:]+:[0-9]+$"}},
 'devRedis.appendfsync': {"type": "string", "enum": ["always", "everysec"]},
 'devRedis.persistence.size': {"type": "string", "pattern": "^[0-9]+(Ki|Mi|Gi|Ti)$"},
 'externalPostgres.port': {"type": "integer", "minimum": 1, "maximum": 65535},
 'externalPostgres.url': {"type": "string", "pattern": "^(postgres(ql)?://[^@]+)?$"},
 'externalPostgres.host': {"type": "string", "pattern": "^([^/@:?#\\[\\] ]*|\\[[0-9A-Fa-f:.]+\\])$"},
 'devPostgres.image.pullPolicy': {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]},
 'devPostgres.image.tag': {"type": "string", "minLength": 1, "not": {"enum": ["latest"]}},
 'devPostgres.database': {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,62}$"},
 'devPostgres.username': {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,62}$"},
 'devPostgres.maxConnections': {"type": "integer", "minimum": 10, "maximum": 10000},
 'devPostgres.persistence.size': {"type": "string", "pattern": "^[0-9]+(Ki|Mi|Gi|Ti)$"},
 'config.rooms.default_time_control': {"oneOf": [
     {"type": "string", "enum": ["none", "blitz", "normal", "long", "1d", "3d", "7d"]},
     {"type": "object", "additionalProperties": False, "required": ["delayMs", "reserveMs"],
      "properties": {"delayMs": {"type": "integer", "minimum": 3000, "maximum": 600000},
                     "reserveMs": {"type": "integer", "minimum": 0, "maximum": 7200000}}}]},
 'config.server.workers': {"type": "integer", "minimum": 1},
 'config.server.room_arbiters': {"type": "integer", "minimum": 1},
 'config.server.max_message_bytes': {"type": "integer", "minimum": 256},
 'config.server.max_frame_bytes': {"type": "integer", "minimum": 256},
 'config.server.rate_per_sec': {"type": "integer", "minimum": 1},
 'config.server.rate_burst': {"type": "integer", "minimum": 1},
 'config.server.abuse_strikes': {"type": "integer", "minimum": 0},
 'config.server.shutdown_timeout_secs': {"type": "integer", "minimum": 0},
 'config.server.ping_interval_ms': {"type": "integer", "minimum": 100},
 'config.server.idle_timeout_ms': {"type": "integer", "minimum": 200},
 'config.server.join_timeout_ms': {"type": "integer", "minimum": 100},
 'config.server.max_sockets_per_player': {"type": "integer", "minimum": 1},
 'config.server.max_sockets_per_address': {"type": "integer", "minimum": 1},
 'config.auth.guest_session_ttl_secs': {"type": "integer", "minimum": 1, "maximum": 31536000},
 'config.quotas.trusted_proxy_hops': {"type": ["integer", "null"], "minimum": 0, "maximum": 8},
 'config.auth.telegram_bot_id': {"type": "integer", "minimum": 0},
 'config.auth.telegram_env': {"type": "string", "enum": ["production", "test"]},
 'config.auth.telegram_public_key': {"type": "string", "pattern": "^([0-9a-fA-F]{64})?$"},
 'config.auth.init_data_max_age_secs': {"type": "integer", "minimum": 1},
 'config.auth.session_ttl_secs': {"type": "integer", "minimum": 1, "maximum": 2592000},
 'config.matchmaking.bot_level': {"type": "integer", "minimum": 1, "maximum": 3},
 'config.cluster.route_timeout_ms': {"type": "integer", "minimum": 50},
 'config.cluster.sweep_interval_ms': {"type": "integer", "minimum": 50},
 'config.redis.pool_size': {"type": "integer", "minimum": 1},
 'config.redis.timeout_ms': {"type": "integer", "minimum": 1},
 'config.redis.lease_ms': {"type": "integer", "minimum": 300},
 'config.redis.prefix': {"type": "string", "minLength": 1, "pattern": "^[^{}]+$"},
 'config.redis.min_replicas_acked': {"type": "integer", "minimum": 0},
 'config.redis.replica_ack_timeout_ms': {"type": "integer", "minimum": 1},
 'config.store.max_connections': {"type": "integer", "minimum": 1, "maximum": 1000},
 'config.store.acquire_timeout_ms': {"type": "integer", "minimum": 10},
 'config.store.archive_interval_ms': {"type": "integer", "minimum": 10},
 'config.store.archive_batch': {"type": "integer", "minimum": 1, "maximum": 5000},
 'config.log.format': {"type": "string", "enum": ["json", "pretty"]},
 'config.web.telegram_app_url': {"type": "string", "pattern": "^(https://t\\.me/[^?# ]+)?$"},
 'extraConfig': {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {
     "type": ["string", "integer", "boolean", "array"], "items": {"type": ["string", "integer", "boolean"]}}}},
 'podDisruptionBudget.maxUnavailable': {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "pattern": "^[0-9]+%$"}]},
 'podDisruptionBudget.unhealthyPodEvictionPolicy': {"type": "string", "enum": ["IfHealthyBudget", "AlwaysAllow"]},
 'autoscaling.minReplicas': {"type": "integer", "minimum": 1},
 'autoscaling.maxReplicas': {"type": "integer", "minimum": 1},
 'autoscaling.targetCPUUtilizationPercentage': {"type": "integer", "minimum": 0, "maximum": 1000},
 'autoscaling.customMetric.name': {"type": "string", "minLength": 1},
 'autoscaling.customMetric.targetAverageValue': {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(m|k|M|G)?$"},
 'metrics.serviceMonitor.interval': duration,
 'metrics.serviceMonitor.scrapeTimeout': duration,
 'metrics.prometheusRule.commandLatencyP99Seconds': {"type": "number", "exclusiveMinimum": 0},
 'metrics.prometheusRule.snapshotLatencyP99Seconds': {"type": "number", "exclusiveMinimum": 0},
 'metrics.prometheusRule.unexplainedTakeovers': {"type": "integer", "minimum": 0},
 'metrics.prometheusRule.redisErrorsPerSecond': {"type": "number", "minimum": 0},
 'metrics.prometheusRule.archiveLagSeconds': {"type": "number", "exclusiveMinimum": 0},
 'metrics.prometheusRule.storeErrorsPerSecond': {"type": "number", "minimum": 0},
}
for k in ['startup', 'liveness', 'readiness']:
    for f in ['periodSeconds', 'timeoutSeconds', 'failureThreshold'] + (['successThreshold'] if k == 'readiness' else []):
        O[f'probes.{k}.{f}'] = {"type": "integer", "minimum": 1}
# Descriptions of maps that have no `# --` line of their own.
EXTRA_DESC = {
 'externalRedis': "An external Redis: one instance (host/port or url, directly or through a proxy that follows the master) or a Redis Cluster (cluster.enabled, cluster.nodes). Redis Sentinel is NOT supported by the node (it never asks Sentinel for the master): there is no `sentinel` value; put a Sentinel-aware proxy in front, or use a Redis Cluster. TLS (rediss://) is not supported either.",
 'externalPostgres': "An external PostgreSQL as the durable store, shared by every node (host/port/database/username or url, the password inline or in an existing Secret). With neither this nor devPostgres the nodes have no durable store (TABULA__STORE__URL empty: history, ratings and leaderboards answer 503 no_store).",
 'config': "The node's settings (config/default.toml), rendered into its config file. The chart sets server.listen, cluster.backplane, cluster.node_id, redis.url, redis.urls, redis.cluster and store.url itself (the store URL, which may hold a password, from a Secret: externalPostgres / devPostgres), and the secrets (auth.bot_token, auth.session_secret, telegram.webhook_secret) come only from `auth`: none of them can be set here.",
 'drain': "The drain of a stopping node: preStop pause, then SIGTERM and the node's own drain.",
}


def descriptions(src):
    # `# --` descriptions by path (indentation-based walk)
    desc = {}
    stack = []  # (indent, key)
    pending = []
    for line in src.splitlines():
        s = line.strip()
        if s.startswith('# --'):
            pending = [s[4:].strip()]; continue
        if s.startswith('#') and pending:
            continue
        m = re.match(r'^(\s*)([A-Za-z0-9_]+):', line)
        if m and not s.startswith('-'):
            ind = len(m.group(1))
            while stack and stack[-1][0] >= ind: stack.pop()
            stack.append((ind, m.group(2)))
            if pending:
                desc['.'.join(k for _, k in stack)] = pending[0]
            pending = []
        elif s and not s.startswith('#'):
            pending = []

    return desc



def build_schema():
    """The schema for the chart's values.yaml, as a dict."""
    with open(os.path.join(CHART, "values.yaml")) as f:
        src = f.read()
    values = yaml.safe_load(src)
    desc = descriptions(src)
    used = set()

    def build(v, path):
        p = '.'.join(path)
        used.add(p)
        if p in O:
            s = dict(O[p])
        elif p in FREE:
            s = {"type": "object"}
            if p in STRMAP:
                s["additionalProperties"] = {"type": "string"}
        elif isinstance(v, dict):
            s = {"type": "object", "additionalProperties": False,
                 "properties": {k: build(x, path + [k]) for k, x in v.items()}}
            s["required"] = sorted(v.keys())
        elif isinstance(v, bool):
            s = {"type": "boolean"}
        elif isinstance(v, int):
            s = {"type": "integer", "minimum": 0}
        elif isinstance(v, float):
            s = {"type": "number"}
        elif isinstance(v, str):
            s = {"type": "string"}
        elif isinstance(v, list):
            s = {"type": "array"}
        else:
            raise SystemExit(f"gen_schema.py: no type for {p}: {v!r}")
        d = desc.get(p) or EXTRA_DESC.get(p)
        if d:
            s = {"description": d, **s}
        return s

    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "title": "tabula chart values",
              **build(values, [])}
    schema.pop("required", None)
    unknown = set(O) - used
    if unknown:
        raise SystemExit(f"gen_schema.py: types for paths values.yaml lacks: {sorted(unknown)}")
    return schema


def render():
    """The file's text."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    with open(os.path.join(CHART, "values.schema.json"), "w") as f:
        f.write(render())
