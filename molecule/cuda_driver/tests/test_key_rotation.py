"""A rotated repository key reaches a converged host, by URL or as text (gpufleet-cuda-1 only: one host shows it)."""

import os

from test_cuda_driver import REPO, URI, assert_signed_by, key_file, run_role

testinfra_hosts = ["gpufleet-cuda-1"]
READ = "Read what the host lacks of the repository, the pin, the packages, the files and the daemons"
SOURCE = "/etc/apt/sources.list.d/cuda.sources"


def test_a_new_key_on_a_converged_host_is_put_in_place_and_trusted_alone(host):
    """NVIDIA rotated its repository key before: a new cuda_repo_key on a host that owes nothing else must still
    reach it (the read of the host compares the source's Signed-By), and the old key is no longer what it trusts.
    The stand-in repository is signed by both keys, as NVIDIA's was during its rotation. Then the armored key
    itself as cuda_repo_key (a mirror's key kept in the inventory): the source holds it as
    ansible.builtin.deb822_repository writes it, apt trusts it, and the next run's read finds it in place (0.2.1
    looked for its lines unindented, never found them, and went through every converge step on every run). One
    test, so that the host goes back to the default key once (a run of the role fewer)."""
    name = host.backend.get_hostname()
    rotated = URI + "rotated-d42d0685.pub"
    with open(os.path.join(REPO, "3bf863cc.pub")) as handle:
        text = handle.read()
    try:
        run = run_role(name, {"cuda_repo_key": rotated})
        assert run.returncode == 0, str(run)
        assert run.result(READ, name)["owes"] == ["%s lacks Signed-By: %s" % (SOURCE, key_file(rotated)),
                                                  "%s is missing" % key_file(rotated)]
        assert_signed_by(host, rotated, "rotated-d42d0685.pub")
        assert key_file(URI + "3bf863cc.pub") not in host.file(SOURCE).content_string
        assert host.run("apt-get update").rc == 0
        again = run_role(name, {"cuda_repo_key": rotated})
        assert again.returncode == 0 and again.changed(name) == 0, str(again)

        as_text = run_role(name, {"cuda_repo_key": text})
        assert as_text.returncode == 0, str(as_text)
        assert "Signed-By:\n    -----BEGIN PGP PUBLIC KEY BLOCK-----\n    .\n" in host.file(SOURCE).content_string
        assert host.run("apt-get update").rc == 0
        again = run_role(name, {"cuda_repo_key": text})
        assert again.returncode == 0 and again.changed(name) == 0, str(again)
        assert again.result(READ, name)["owes"] == [], str(again)
    finally:
        back = run_role(name, {})
        assert back.returncode == 0, str(back)
    assert_signed_by(host, URI + "3bf863cc.pub", "3bf863cc.pub")
