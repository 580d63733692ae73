// Validates the chart's custom resources against their upstream CRD schemas
// (compiled by @kubernetes-models from prometheus-operator and Gateway API).
// Input: a JSON array of {source, doc} on stdin. Prints one line per object;
// exits 1 when any is invalid or of a kind it has no schema for.
// Run by scripts/test-helm with TABULA_NPM_DIR=target/tools/npm/node_modules.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// By file: the packages' own imports then resolve inside TABULA_NPM_DIR.
const load = async (path) => import(pathToFileURL(join(process.env.TABULA_NPM_DIR, path, "index.js")).href);

const monitoring = await load("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1");
const gateway = await load("@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1");
const models = {
  "monitoring.coreos.com/v1/ServiceMonitor": monitoring.ServiceMonitor,
  "monitoring.coreos.com/v1/PrometheusRule": monitoring.PrometheusRule,
  "monitoring.coreos.com/v1/PodMonitor": monitoring.PodMonitor,
  "gateway.networking.k8s.io/v1/HTTPRoute": gateway.HTTPRoute,
};

let input = "";
for await (const chunk of process.stdin) input += chunk;
let failed = 0;
for (const { source, doc } of JSON.parse(input)) {
  const key = `${doc.apiVersion}/${doc.kind}`;
  const name = `${source}: ${doc.kind}/${doc.metadata?.name}`;
  const Model = models[key];
  if (!Model) {
    console.log(`FAIL ${name}: no schema for ${key}`);
    failed++;
    continue;
  }
  try {
    new Model(doc).validate();
    console.log(`ok   ${name} (${key}, upstream CRD schema)`);
  } catch (e) {
    console.log(`FAIL ${name}: ${e.message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
