#!/usr/bin/env bash
# Gives a multicluster-runtime controller that uses the kubeconfig provider access to a member cluster:
# creates a ServiceAccount in the member with exactly the RBAC rules of a rules file, mints a token for it,
# and stores a kubeconfig with that token as a labelled Secret in the hub, where the provider finds it.
# Idempotent: run it again to rotate the token or change the rules. Run with --help for the options.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog=$(basename "$0")

# What the kubeconfig provider looks for (providers/kubeconfig: DefaultKubeconfigSecretLabel and
# DefaultKubeconfigSecretKey).
secret_label=sigs.k8s.io/multicluster-runtime-kubeconfig
secret_key=kubeconfig
field_manager=create-kubeconfig-secret

usage() {
	cat <<EOF
Usage: $prog --name NAME (--member-context CTX | --member-kubeconfig FILE) [options]

Creates, in the member cluster, a ServiceAccount bound to a Role (or ClusterRole) with exactly the
rules of a rules file, mints a token for it, and writes a kubeconfig using that token into the hub
cluster as the Secret NAME, labelled ${secret_label}=true, under the key "${secret_key}".
The kubeconfig provider then engages the member as the cluster NAME. Re-running is safe: it updates
the rules, rotates the token and updates the Secret.

Required:
  --name NAME                 name of the cluster, and of the Secret in the hub (a DNS-1123 subdomain)
  --member-context CTX        kubectl context of the member cluster, and/or
  --member-kubeconfig FILE    kubeconfig file of the member cluster (its current context, or CTX)

Options:
  --hub-context CTX           kubectl context of the hub cluster (default: the current context)
  --hub-kubeconfig FILE       kubeconfig file of the hub cluster (default: kubectl's default)
  --namespace NS              namespace of the Secret in the hub (default: default); created if missing
  --serviceaccount SA         ServiceAccount in the member (default: multicluster-runtime-NAME)
  --sa-namespace NS           namespace of the ServiceAccount in the member (default: default);
                              created if missing
  --rules FILE                YAML list of RBAC PolicyRules to grant (default: rules.yaml beside this
                              script)
  --cluster-scoped            grant the rules cluster-wide with a ClusterRole and ClusterRoleBinding
                              named SA_NAMESPACE:SA; without it, with a Role and RoleBinding named SA
                              in --role-namespace (the grant of the other kind, if any, is removed)
  --role-namespace NS         namespace of the Role (default: the ServiceAccount's namespace); created
                              if missing
  --token-duration DURATION   lifetime of the token, e.g. 24h or 8760h (default: 24h); the API server
                              may shorten it. Re-run the script before it expires.
  --member-server URL         API server URL to put in the kubeconfig, when the hub reaches the member
                              at another address than the member kubeconfig says
  -h, --help                  show this help

Requires kubectl (1.24 or newer, for "kubectl create token" and server-side apply) and standard
tools. The token never appears on a command line.

Example:
  $prog --name eu-1 --member-context kind-eu-1 --hub-context kind-hub --namespace fleet
EOF
}

log() { printf '%s: %s\n' "$prog" "$*" >&2; }
fail() {
	log "error: $*"
	exit 1
}
usage_error() {
	log "error: $*"
	echo "Run '$prog --help' for usage." >&2
	exit 2
}

name=""
member_context=""
member_kubeconfig=""
hub_context=""
hub_kubeconfig=""
namespace=default
serviceaccount=""
sa_namespace=default
rules_file="$script_dir/rules.yaml"
cluster_scoped=false
role_namespace=""
token_duration=24h
member_server=""

while (($# > 0)); do
	arg=$1
	shift
	has_value=false
	value=""
	if [[ $arg == --*=* ]]; then
		value=${arg#*=}
		arg=${arg%%=*}
		has_value=true
	fi
	case $arg in
	-h | --help)
		usage
		exit 0
		;;
	--cluster-scoped)
		[[ $has_value == false ]] || usage_error "$arg takes no value"
		cluster_scoped=true
		continue
		;;
	--name | --member-context | --member-kubeconfig | --hub-context | --hub-kubeconfig | --namespace | \
		--serviceaccount | --sa-namespace | --rules | --role-namespace | --token-duration | --member-server)
		if [[ $has_value == false ]]; then
			(($# > 0)) || usage_error "$arg needs a value"
			value=$1
			shift
		fi
		[[ -n $value ]] || usage_error "$arg needs a non-empty value"
		;;
	*)
		usage_error "unknown argument: $arg"
		;;
	esac
	case $arg in
	--name) name=$value ;;
	--member-context) member_context=$value ;;
	--member-kubeconfig) member_kubeconfig=$value ;;
	--hub-context) hub_context=$value ;;
	--hub-kubeconfig) hub_kubeconfig=$value ;;
	--namespace) namespace=$value ;;
	--serviceaccount) serviceaccount=$value ;;
	--sa-namespace) sa_namespace=$value ;;
	--rules) rules_file=$value ;;
	--role-namespace) role_namespace=$value ;;
	--token-duration) token_duration=$value ;;
	--member-server) member_server=$value ;;
	esac
done

# --- validation: every mistake in the arguments exits with 2 before anything is changed ---

dns_subdomain='^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'
dns_label='^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'

[[ -n $name ]] || usage_error "--name is required"
[[ -n $member_context || -n $member_kubeconfig ]] || usage_error "--member-context or --member-kubeconfig is required"
serviceaccount=${serviceaccount:-multicluster-runtime-$name}
role_namespace=${role_namespace:-$sa_namespace}

for pair in "--name:$name" "--serviceaccount:$serviceaccount"; do
	flag=${pair%%:*}
	v=${pair#*:}
	[[ ${#v} -le 253 && $v =~ $dns_subdomain ]] || usage_error "$flag: \"$v\" is not a valid name (a DNS-1123 subdomain: lowercase letters, digits, '-' and '.')"
done
for pair in "--namespace:$namespace" "--sa-namespace:$sa_namespace" "--role-namespace:$role_namespace"; do
	flag=${pair%%:*}
	v=${pair#*:}
	[[ ${#v} -le 63 && $v =~ $dns_label ]] || usage_error "$flag: \"$v\" is not a valid namespace name"
done
[[ $token_duration =~ ^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$ ]] || usage_error "--token-duration: \"$token_duration\" is not a duration such as 24h or 90m"
[[ -z $member_server || $member_server =~ ^https?://[^[:space:]]+$ ]] || usage_error "--member-server: \"$member_server\" is not an http(s) URL"
for pair in "--member-kubeconfig:$member_kubeconfig" "--hub-kubeconfig:$hub_kubeconfig"; do
	flag=${pair%%:*}
	v=${pair#*:}
	[[ -z $v || -r $v ]] || usage_error "$flag: cannot read \"$v\""
done
[[ -f $rules_file && -r $rules_file ]] || usage_error "--rules: cannot read \"$rules_file\""
# The rules file is a YAML list: its first line that is neither blank nor a comment starts a list item.
first_rule_line=$(grep -v -E '^[[:space:]]*(#.*)?$' "$rules_file" | head -n 1 || true)
[[ -n $first_rule_line ]] || usage_error "--rules: \"$rules_file\" holds no rules"
[[ $first_rule_line == -* ]] || usage_error "--rules: \"$rules_file\" must be a YAML list of PolicyRules (lines starting with '- ')"

command -v kubectl >/dev/null 2>&1 || fail "kubectl is not on PATH"

member=(kubectl)
[[ -z $member_kubeconfig ]] || member+=(--kubeconfig "$member_kubeconfig")
[[ -z $member_context ]] || member+=(--context "$member_context")
hub=(kubectl)
[[ -z $hub_kubeconfig ]] || hub+=(--kubeconfig "$hub_kubeconfig")
[[ -z $hub_context ]] || hub+=(--context "$hub_context")
apply=(apply --server-side --force-conflicts --field-manager "$field_manager" -f -)

umask 077
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

# ensure_namespace CLUSTER... -- NS creates the namespace NS if it does not exist, with the given kubectl.
ensure_namespace() {
	local ns=${*: -1}
	local -a kc=("${@:1:$#-1}")
	"${kc[@]}" create namespace "$ns" --dry-run=client -o yaml | "${kc[@]}" "${apply[@]}" >/dev/null
}

# --- member: ServiceAccount and RBAC ---

log "member: ServiceAccount $sa_namespace/$serviceaccount"
ensure_namespace "${member[@]}" "$sa_namespace"
"${member[@]}" create serviceaccount "$serviceaccount" -n "$sa_namespace" --dry-run=client -o yaml |
	"${member[@]}" "${apply[@]}" >/dev/null

rules=$(sed -e '/^---[[:space:]]*$/d' -e 's/^/  /' "$rules_file")
managed_by_label=app.kubernetes.io/managed-by
managed_by="$managed_by_label: $field_manager"
cluster_role="$sa_namespace:$serviceaccount"

if [[ $cluster_scoped == true ]]; then
	log "member: ClusterRole and ClusterRoleBinding $cluster_role with the rules of $rules_file"
	"${member[@]}" "${apply[@]}" >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: "$cluster_role"
  labels:
    $managed_by
rules:
$rules
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: "$cluster_role"
  labels:
    $managed_by
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: "$cluster_role"
subjects:
- kind: ServiceAccount
  name: "$serviceaccount"
  namespace: "$sa_namespace"
EOF
	# Exactly these rules: drop a namespaced grant from an earlier run without --cluster-scoped.
	"${member[@]}" delete rolebinding,role "$serviceaccount" -n "$role_namespace" --ignore-not-found >/dev/null
else
	log "member: Role and RoleBinding $role_namespace/$serviceaccount with the rules of $rules_file"
	ensure_namespace "${member[@]}" "$role_namespace"
	"${member[@]}" "${apply[@]}" >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: "$serviceaccount"
  namespace: "$role_namespace"
  labels:
    $managed_by
rules:
$rules
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: "$serviceaccount"
  namespace: "$role_namespace"
  labels:
    $managed_by
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: "$serviceaccount"
subjects:
- kind: ServiceAccount
  name: "$serviceaccount"
  namespace: "$sa_namespace"
EOF
	# Exactly these rules: drop a cluster-wide grant from an earlier run with --cluster-scoped.
	"${member[@]}" delete clusterrolebinding,clusterrole "$cluster_role" --ignore-not-found >/dev/null
fi

# --- member: token and kubeconfig ---

log "member: token for $sa_namespace/$serviceaccount, valid for $token_duration"
token=$("${member[@]}" create token "$serviceaccount" -n "$sa_namespace" --duration "$token_duration") ||
	fail "could not create a token for $sa_namespace/$serviceaccount (does the API server issue service account tokens?)"
[[ -n $token ]] || fail "the member returned an empty token"

cluster_field() {
	"${member[@]}" config view --raw --minify --flatten -o "jsonpath={.clusters[0].cluster.$1}"
}
server=${member_server:-$(cluster_field server)}
[[ -n $server ]] || fail "could not read the member's API server URL from its kubeconfig"
ca_data=$(cluster_field certificate-authority-data)
insecure=$(cluster_field insecure-skip-tls-verify)
tls_server_name=$(cluster_field tls-server-name)
if [[ -z $ca_data && $insecure != true ]]; then
	log "warning: the member's kubeconfig has no CA data; the kubeconfig relies on the system's trusted CAs"
fi

kubeconfig_file="$workdir/kubeconfig"
{
	echo "apiVersion: v1"
	echo "kind: Config"
	echo "clusters:"
	echo "- name: \"$name\""
	echo "  cluster:"
	echo "    server: \"$server\""
	[[ -z $ca_data ]] || echo "    certificate-authority-data: \"$ca_data\""
	[[ $insecure != true ]] || echo "    insecure-skip-tls-verify: true"
	[[ -z $tls_server_name ]] || echo "    tls-server-name: \"$tls_server_name\""
	echo "users:"
	echo "- name: \"$serviceaccount\""
	echo "  user:"
	echo "    token: \"$token\""
	echo "contexts:"
	echo "- name: \"$name\""
	echo "  context:"
	echo "    cluster: \"$name\""
	echo "    user: \"$serviceaccount\""
	echo "    namespace: \"$role_namespace\""
	echo "current-context: \"$name\""
} >"$kubeconfig_file"
unset token

# --- hub: the Secret ---

log "hub: Secret $namespace/$name, labelled $secret_label, key $secret_key"
ensure_namespace "${hub[@]}" "$namespace"
"${hub[@]}" create secret generic "$name" -n "$namespace" --from-file="$secret_key=$kubeconfig_file" \
	--dry-run=client -o yaml |
	"${hub[@]}" label --local -f - "$secret_label=true" "$managed_by_label=$field_manager" -o yaml |
	"${hub[@]}" "${apply[@]}" >/dev/null

echo "Secret $namespace/$name holds a kubeconfig for $server as $sa_namespace/$serviceaccount (token valid for $token_duration)."
