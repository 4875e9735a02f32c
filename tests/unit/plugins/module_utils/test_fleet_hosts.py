"""What a server host is to the fleet, defined once (module_utils/_fleet_hosts.py): its server's hosts,
rank 0, worker URL and metrics address, as the routers, the drain and Prometheus all read them."""

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_hosts

GROUPS = {"sglang_servers": ["gpu-01", "gpu-02", "gpu-03", "gpu-04"], "kimi_tp16": ["gpu-03", "gpu-02"]}
SETTINGS = {"sglang_port": 30000, "sglang_host": "0.0.0.0", "sglang_tp_group": "", "sglang_router_worker_url": "",
            "sglang_weights_peer_address": ""}
HOSTVARS = {"gpu-01": {"ansible_host": "10.0.0.11"},
            "gpu-02": {"ansible_host": "10.0.0.12", "sglang_tp_group": "kimi_tp16"},
            "gpu-03": {"ansible_host": "10.0.0.13", "sglang_tp_group": "kimi_tp16", "sglang_port": 31000},
            "gpu-04": {"sglang_router_worker_url": "https://gpu-04.example:8443",
                       "sglang_weights_peer_address": "192.168.7.4"}}


def test_a_one_host_server_is_its_own_rank0_on_its_address_and_port():
    found = _fleet_hosts.fleet_host(GROUPS, HOSTVARS, "gpu-01", SETTINGS)
    assert found == {"host": "gpu-01", "hosts": ["gpu-01"], "rank0": "gpu-01", "is_rank0": True, "tp_group": "",
                     "worker_url": "http://10.0.0.11:30000", "address": "10.0.0.11", "listen": "0.0.0.0",
                     "port": 30000, "weights_peer": "10.0.0.11"}


def test_a_multi_node_server_is_ranked_in_its_groups_order_and_its_own_settings_win():
    second = _fleet_hosts.fleet_host(GROUPS, HOSTVARS, "gpu-02", SETTINGS)
    assert (second["hosts"], second["rank0"], second["is_rank0"]) == (["gpu-03", "gpu-02"], "gpu-03", False)
    first = _fleet_hosts.fleet_host(GROUPS, HOSTVARS, "gpu-03", SETTINGS)
    assert first["is_rank0"] and first["worker_url"] == "http://10.0.0.13:31000"


def test_a_worker_url_given_is_kept_exactly_and_a_host_without_ansible_host_is_reached_by_name():
    found = _fleet_hosts.fleet_host(GROUPS, HOSTVARS, "gpu-04", SETTINGS)
    assert (found["worker_url"], found["address"]) == ("https://gpu-04.example:8443", "gpu-04")


def test_the_weights_peer_listens_where_the_fleet_reaches_the_host_unless_its_address_is_given():
    assert _fleet_hosts.fleet_host(GROUPS, HOSTVARS, "gpu-01", SETTINGS)["weights_peer"] == "10.0.0.11"
    assert _fleet_hosts.fleet_host(GROUPS, HOSTVARS, "gpu-04", SETTINGS)["weights_peer"] == "192.168.7.4"


def test_the_servers_of_a_group_are_one_rank0_each():
    found = _fleet_hosts.fleet_servers(GROUPS, HOSTVARS, SETTINGS)
    assert [server["host"] for server in found] == ["gpu-01", "gpu-03", "gpu-04"]
    assert _fleet_hosts.fleet_servers(GROUPS, HOSTVARS, SETTINGS, group="none") == []


TREE = ["gpu-%02d" % number for number in range(1, 8)]
TREE_HOSTVARS = dict((host, {"ansible_host": "10.0.0.%d" % (10 + number)}) for number, host in enumerate(TREE, 1))


def fanout(host, hosts=TREE, hostvars=None):
    return _fleet_hosts.weights_fanout({}, hostvars or TREE_HOSTVARS, host, hosts, SETTINGS, 18431)


def test_a_weights_fanout_is_a_binary_tree_in_the_groups_order():
    parents = dict((host, fanout(host)["parent"]) for host in TREE)
    assert parents == {"gpu-01": "", "gpu-02": "gpu-01", "gpu-03": "gpu-01", "gpu-04": "gpu-02", "gpu-05": "gpu-02",
                       "gpu-06": "gpu-03", "gpu-07": "gpu-03"}
    children = dict((host, fanout(host)["children"]) for host in TREE)
    assert children == {"gpu-01": ["gpu-02", "gpu-03"], "gpu-02": ["gpu-04", "gpu-05"], "gpu-03": ["gpu-06", "gpu-07"],
                        "gpu-04": [], "gpu-05": [], "gpu-06": [], "gpu-07": []}
    # Each host but the first has exactly one parent, which lists it among its children.
    assert all(host in children[parent] for host, parent in parents.items() if parent)


def test_a_host_fetches_from_its_parents_peer_server_and_the_first_from_the_endpoint():
    assert fanout("gpu-01")["parent_url"] == ""
    assert fanout("gpu-05")["parent_url"] == "http://10.0.0.12:18431"
    assert fanout("gpu-05")["address"] == "10.0.0.15"


def test_a_peer_server_listens_where_its_host_says_and_its_children_connect_there():
    hostvars = dict(TREE_HOSTVARS, **{"gpu-01": {"ansible_host": "10.0.0.11", "sglang_weights_peer_address": "192.168.7.1"}})
    assert fanout("gpu-01", hostvars=hostvars)["address"] == "192.168.7.1"
    assert fanout("gpu-03", hostvars=hostvars)["parent_url"] == "http://192.168.7.1:18431"


def test_a_host_outside_the_fanout_group_stages_alone():
    alone = fanout("gpu-09", hosts=TREE[:3], hostvars=dict(TREE_HOSTVARS, **{"gpu-09": {}}))
    assert alone == {"hosts": ["gpu-09"], "parent": "", "parent_url": "", "children": [], "address": "gpu-09"}


def test_without_fanout_each_host_is_its_own_tree():
    assert fanout("gpu-04", hosts=["gpu-04"])["hosts"] == ["gpu-04"]
    assert (fanout("gpu-04", hosts=["gpu-04"])["parent"], fanout("gpu-04", hosts=["gpu-04"])["children"]) == ("", [])
