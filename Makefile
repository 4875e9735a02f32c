# gpufleet.sglang developer entry points. Everything runs from the pinned .venv.
SHELL := /bin/bash
export PATH := $(CURDIR)/.venv/bin:$(PATH)
export ANSIBLE_COLLECTIONS_PATH := $(CURDIR)/.collections

.PHONY: setup engine image real-sglang test test-rollout test-eda test-cores lint docs docs-site sanity units molecule demo demo-down bench sweep bench-rollout bench-settings bench-noop bench-profile bench-host-cpu bench-real bench-speculation bench-idle-cpu bench-weights bench-hashing bench-out bench-scale bench-fresh-ci ee build release clean

setup:            ## the pinned dev environment in .venv, the collection link, ansible-test's offline pip bootstrap
	bash scripts/setup.sh

engine:           ## a Docker engine that answers (installs docker.io and starts dockerd when none does)
	bash scripts/engine.sh

image: engine     ## the local Debian 12 + systemd base image (debootstrap + docker import)
	bash scripts/base-image.sh

real-sglang: setup  ## the real SGLang 0.5.9 and 0.5.23 with every dependency, one venv each in the cache (first time: ~3.5 min and 11 GB each)
	PYTHONPATH=tests python -m gpufleet_testlib.real_sglang

test: setup ## the whole suite: lint, generated docs, build + Galaxy import, sanity, pytest units, real SGLang, molecule
	@# The base images and the SGLang venvs at once: on a new machine both are mostly downloads.
	$(MAKE) --no-print-directory --output-sync=target -j2 image real-sglang
	bash scripts/test.sh

test-rollout: setup image real-sglang  ## a draft rollout on two real SGLang servers behind the router, gated on the acceptance SGLang reports (EAGLE-3 on the CPU; not in make test)
	time molecule test -s real_rollout

test-eda: setup  ## the Event-Driven Ansible event source inside the real ansible-rulebook (.venv-eda and Debian's Java; not in make test)
	time pytest -q -p no:cacheprovider tests/eda

test-cores: setup  ## units and ansible-test sanity on ansible-core 2.19 and 2.20 (the older minors claimed), beside make test's 2.21
	bash scripts/other-cores.sh

lint: setup
	yamllint --strict . && ansible-lint --profile production

docs-site: setup  ## the documentation site, built offline with antsibull-docs and Sphinx: build/docs-site/html/index.html
	bash scripts/docs-site.sh

docs: setup       ## regenerate the role READMEs from their argument specs (the heads above the markers are kept)
	bash scripts/docs.sh

sanity: setup
	bash scripts/ansible-test.sh sanity --python "$$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

units: setup
	pytest -q tests/unit

molecule: setup image  ## every molecule scenario and the integration tests; the upgrade scenario (the longest) beside the others
	bash scripts/system-tests.sh

demo: setup image ## start the demo fleet (3 systemd containers), run playbooks/site.yml on it, print the router's URL
	bash scripts/demo.sh up
	ansible-playbook -i inventories/demo tests/standin/deploy.yml
	ansible-playbook -i inventories/demo playbooks/site.yml
	bash scripts/demo.sh url

demo-down:        ## remove the demo fleet
	bash scripts/demo.sh down

bench: setup      ## performance figures (bench/)
	PYTHONPATH=tests:.collections python bench/audit.py

sweep: setup      ## audit every wrapper of every SGLang release on PyPI from 0.5.8 on (downloads each wheel once)
	PYTHONPATH=tests:.collections python bench/sweep_releases.py

bench-rollout: setup image  ## draft upgrade downtime, this collection's flow against a naive one (demo fleet)
	PYTHONPATH=tests:.collections python bench/rollout.py

bench-settings: setup image  ## a one-setting change, batched restarts against the all-at-once flow before (demo fleet)
	PYTHONPATH=tests:.collections python bench/settings_change.py

bench-noop: setup image  ## a no-op site.yml against Ansible's floor (gather facts + ping), on the demo fleet over SSH
	PYTHONPATH=tests:.collections python bench/noop.py

bench-profile: setup image  ## where a no-op site.yml spends the controller's CPU, by play and by task, and the templates it compiles (demo fleet)
	PYTHONPATH=tests:.collections python bench/noop_profile.py

bench-host-cpu: setup image  ## what a no-op site.yml costs the hosts, module by module (demo fleet, after make demo)
	PYTHONPATH=tests:.collections python bench/host_cpu.py

bench-idle-cpu: setup real-sglang  ## what an idle real SGLang server costs the CPU, with and without --sleep-on-idle
	PYTHONPATH=tests:.collections python bench/idle_cpu.py

bench-weights: setup  ## staging weights from a real olah mirror: bytes served with and without fan-out, a no-op's verification, sha256 rate
	PYTHONPATH=tests:.collections python bench/weights.py

bench-hashing: setup  ## a full check's hashing: the collection's pool at 1, 2 and all cores beside the code before and sha256sum
	PYTHONPATH=tests:.collections python bench/hashing.py

bench-out: setup image  ## seconds each server is out of the routers in a draft rollout and a settings change, before and after (demo fleet)
	PYTHONPATH=tests:.collections python bench/out_of_routers.py

bench-real: setup real-sglang  ## the real SGLang on the CPU: cold start, tier 1's test time, the install from an empty cache
	PYTHONPATH=tests:.collections python bench/real_sglang.py --install

bench-speculation: setup real-sglang  ## EAGLE-3 in SGLang's own server on the CPU: tokens/s without a draft, with an agreeing and a disagreeing one, acceptance, cold start
	PYTHONPATH=tests:.collections python bench/speculation.py

bench-scale: setup image  ## no-op site.yml and a draft rollout at 3, 10 and 30 hosts over SSH, two forks, Mitogen beside the default
	PYTHONPATH=tests:.collections python bench/scale.py

bench-fresh-ci:   ## a new machine's first .ci/run, on this one: a new clone, empty caches, the collection's images removed (~25 GB under /var/tmp)
	bash bench/fresh_ci.sh

ee: setup image   ## the execution environment (execution-environment.yml) with ansible-builder
	bash scripts/ee.sh build

build: setup      ## the collection tarball (test and dev files left out)
	ansible-galaxy collection build --force

release: setup    ## cut galaxy.yml's version: the changelog from the fragments, then the tarball's content recorded in changelogs/releases/
	antsibull-changelog release
	ansible-galaxy collection build --force --output-path build/release
	python3 scripts/release-manifest.py record build/release/gpufleet-sglang-$$(python3 -c 'import yaml; print(yaml.safe_load(open("galaxy.yml"))["version"])').tar.gz

clean: demo-down
	rm -rf .venv .venv-galaxy .collections gpufleet-sglang-*.tar.gz
