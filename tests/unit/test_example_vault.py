"""The example's secrets as its vault.yml says to keep them: each value encrypted with `ansible-vault
encrypt_string`. AWX/AAP syncs an inventory sourced from a project by running ansible-inventory without a vault
password: the sync reads such values (kept encrypted) and a job with the Vault credential decrypts them; a
vault.yml encrypted whole fails the sync. Shown with the real ansible-vault and ansible-inventory on a copy of
the example."""

import json
import os
import shutil
import subprocess

import pytest

from gpufleet_testlib import ROOT

EXAMPLE = os.path.join(ROOT, "inventories", "example")
SECRETS = {"vault_sglang_api_key": "k-1f2e", "vault_sglang_router_admin_key": "a-9c8d", "vault_sglang_hf_token": "h-3b7a"}


@pytest.fixture
def copy(tmp_path):
    inventory = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, inventory)
    password = tmp_path / "password"
    password.write_text("correct horse\n")
    return inventory, str(password)


def ansible(tool, *args):
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default", ANSIBLE_CALLBACK_RESULT_FORMAT="yaml")
    return subprocess.run([tool] + list(args), capture_output=True, text=True, check=False, timeout=120, env=env)


def encrypt_values(inventory, password):
    lines = ["---"]
    for name, value in SECRETS.items():
        out = ansible("ansible-vault", "encrypt_string", "--vault-password-file", password, "--name", name, value)
        assert out.returncode == 0, out.stderr
        lines.append(out.stdout.rstrip())
    (inventory / "group_vars" / "all" / "vault.yml").write_text("\n".join(lines) + "\n")


def host_vars(inventory, *args):
    out = ansible("ansible-inventory", "-i", str(inventory), "--host", "gpu-rtx6000-01", *args)
    return out, (json.loads(out.stdout) if out.returncode == 0 else None)


def test_encrypted_values_sync_without_a_password_and_decrypt_with_it(copy):
    inventory, password = copy
    encrypt_values(inventory, password)
    out, synced = host_vars(inventory)  # AWX's inventory sync: no vault secret
    assert out.returncode == 0, out.stderr
    assert "k-1f2e" not in out.stdout and "__ansible_vault" in json.dumps(synced["vault_sglang_api_key"])
    # A job, with its Vault credential: the playbooks' sglang_api_key is the decrypted value.
    out = ansible("ansible", "-i", str(inventory), "gpu-rtx6000-01", "-m", "ansible.builtin.debug", "-a",
                  "var=sglang_api_key", "--vault-password-file", password)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "sglang_api_key: k-1f2e" in out.stdout, out.stdout


def test_a_vault_file_encrypted_whole_fails_the_sync(copy):
    inventory, password = copy
    vault = inventory / "group_vars" / "all" / "vault.yml"
    out = ansible("ansible-vault", "encrypt", "--vault-password-file", password, str(vault))
    assert out.returncode == 0, out.stderr
    out, _vars = host_vars(inventory)
    assert out.returncode != 0 and "no vault secrets" in out.stderr, out.stderr


def test_the_example_says_to_encrypt_values_not_the_file():
    text = open(os.path.join(EXAMPLE, "group_vars", "all", "vault.yml")).read()
    assert "ansible-vault encrypt_string" in text and "ansible-vault encrypt " not in text
