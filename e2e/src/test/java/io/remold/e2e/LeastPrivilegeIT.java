package io.remold.e2e;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Scenario 9: the installed RBAC, asked of the API server by impersonating the ServiceAccounts
 * ({@code kubectl auth can-i --as}): what the server and certgen need is allowed, and nothing beyond it.
 */
@ExtendWith(Remold.class)
class LeastPrivilegeIT {

    @ParameterizedTest(name = "{0} {1} {2} in {3}: {4}")
    @CsvSource({
            // account,      verb,   resource,                        namespace,     allowed
            "remold-server,  watch,  modrules.remold.io,              '',            yes",
            "remold-server,  list,   modrules.api.kubemod.io,         '',            yes",
            "remold-server,  patch,  modrules.remold.io --subresource=status, '', yes",
            "remold-server,  watch,  namespaces,                      '',            yes",
            "remold-server,  watch,  nodes,                           '',            yes",
            "remold-server,  patch,  pods,                            team-a,        yes", // --node-annotations
            "remold-server,  create, subjectaccessreviews.authorization.k8s.io, '',  yes", // --allow-references
            "remold-server,  create, leases.coordination.k8s.io,      remold-system, yes",
            "remold-server,  update, leases.coordination.k8s.io/remold-leader, remold-system, yes",
            "remold-server,  update, leases.coordination.k8s.io/other, remold-system, no",
            "remold-server,  watch,  assign.mutations.gatekeeper.sh,  '',            yes",
            "remold-server,  patch,  modifyset.mutations.gatekeeper.sh --subresource=status, '', yes",
            "remold-server,  update, assignimage.mutations.gatekeeper.sh, '',        no",
            "remold-server,  watch,  clusterjsadmissions.momiji.com,  '',            yes",
            "remold-server,  patch,  jsadmissions.momiji.com --subresource=status, team-a, yes",
            "remold-server,  update, jsadmissions.momiji.com,         team-a,        no",
            "remold-server,  watch,  clusteroverridepolicies.policy.kcloudlabs.io, '', yes", // --kinitiras-compat
            "remold-server,  patch,  overridepolicies.policy.kcloudlabs.io --subresource=status, team-a, yes",
            "remold-server,  update, clustervalidatepolicies.policy.kcloudlabs.io, '', no",
            "remold-server,  patch,  reports.openreports.io,          team-a,        yes", // --reports
            "remold-server,  delete, clusterreports.openreports.io,   '',            yes",
            "remold-server,  update, reports.openreports.io,          team-a,        no",
            "remold-server,  watch,  pods,                            '',            yes",
            "remold-server,  watch,  deployments.apps,                '',            no",
            "remold-server,  create, modrules.remold.io,              team-a,        no",
            "remold-server,  delete, pods,                            team-a,        no",
            "remold-server,  get,    secrets,                         remold-system, no",
            "remold-server,  watch,  configmaps,                      '',            yes",
            "remold-server,  update, configmaps,                      team-a,        no",
            "remold-server,  list,   secrets,                         '',            no",
            "remold-server,  patch,  nodes,                           '',            no",
            "remold-server,  update, mutatingwebhookconfigurations,   '',            no",
    })
    void theServiceAccountMayDoWhatItNeedsAndNoMore(String account, String verb, String resource, String namespace,
                                                   String allowed) {
        // resource: kubectl's TYPE or TYPE/NAME, optionally followed by --subresource=...
        var argv = new ArrayList<>(List.of("auth", "can-i", verb));
        argv.addAll(List.of(resource.split(" ")));
        argv.add("--as=system:serviceaccount:" + Remold.SYSTEM_NAMESPACE + ":" + account);
        if (!namespace.isEmpty()) {
            argv.add("-n");
            argv.add(namespace);
        }
        var answer = Cluster.kubectl(argv.toArray(String[]::new)).run();
        // can-i exits 1 for "no": the answer is what it prints.
        assertThat(answer.toString(), answer.stdout().strip(), equalTo(allowed));
    }
}
