"""Runs inside a release's venv (torch is there): the sgl_kernel double's speculative ops on random draft trees,
against a reference that reads each tree from its parent array, and, where the release ships them (0.5.23),
against SGLang's own Triton versions of the same ops run by Triton's interpreter (TRITON_INTERPRET=1, set by
the caller). Prints one JSON object: how many trees were compared with what, and every difference.

    python ops_check.py DOUBLES_DIR TREES SEED
"""

import json
import random
import sys

import torch


def random_tree(rng, topk, depth, draft_token_num):
    """parent_list, selected_index (sorted, as organize_draft_results gives them) and each node's parent, for a
    tree that EAGLE's draft could have made: step 0 scores topk tokens after the verified one; each later step
    expands topk of the previous step's candidates into topk candidates each; the draft keeps n-1 of all scores,
    each with its parent kept (a parent that is not kept is the kernel's error case, tested apart)."""
    candidates = {index: None for index in range(topk)}  # score index -> the score index it expands (None: root)
    parent_list = [-1]
    previous = list(range(topk))
    for step in range(1, depth):
        expanded = rng.sample(previous, topk) if len(previous) >= topk else previous
        parent_list.extend(expanded)
        first = topk + (step - 1) * topk * topk
        previous = []
        for slot, token in enumerate(expanded):
            for choice in range(topk):
                index = first + slot * topk + choice
                candidates[index] = token
                previous.append(index)
    chosen = set()
    while len(chosen) < draft_token_num - 1:
        index = rng.choice(sorted(candidates))
        while index is not None and index not in chosen and len(chosen) < draft_token_num - 1:
            path = [index]
            parent = candidates[index]
            while parent is not None and parent not in chosen:
                path.append(parent)
                parent = candidates[parent]
            if len(chosen) + len(path) <= draft_token_num - 1:
                chosen.update(path)
            index = None
    selected = sorted(chosen)
    parents = [None] + [0 if candidates[index] is None else selected.index(candidates[index]) + 1 for index in selected]
    return parent_list, selected, parents


def reference_tree(parents, seq_len, n):
    """(mask rows over the n tree columns, positions, next_token, next_sibling) from the parent array."""
    rows, positions = [], []
    for node in range(n):
        line, depth, ancestor = [False] * n, 0, node
        line[0] = True
        while ancestor:
            line[ancestor] = True
            depth += 1
            ancestor = parents[ancestor]
        rows.append(line)
        positions.append(seq_len + depth)
    children = dict((node, sorted(child for child in range(1, n) if parents[child] == node)) for node in range(n))
    next_token = [children[node][0] if children[node] else -1 for node in range(n)]
    next_sibling = [-1] * n
    for kids in children.values():
        for older, younger in zip(kids, kids[1:]):
            next_sibling[older] = younger
    return rows, positions, next_token, next_sibling


def reference_verify(parents, drafts, targets, steps):
    """The accepted nodes: from node 0, the smallest child whose token the target predicts after its parent."""
    accepted = [0]
    for _step in range(1, steps):
        node = accepted[-1]
        match = [child for child in range(1, len(parents)) if parents[child] == node
                 and drafts[child] == targets[node]]
        if not match:
            break
        accepted.append(match[0])
    return accepted


def buffers(batch, seq_lens, n):
    return dict(
        tree_mask=torch.ones(sum(seq_lens) * n + n * n * batch, dtype=torch.bool),
        positions=torch.empty(batch * n, dtype=torch.long),
        retrive_index=torch.full((batch, n), -1, dtype=torch.long),
        retrive_next_token=torch.full((batch, n), -1, dtype=torch.long),
        retrive_next_sibling=torch.full((batch, n), -1, dtype=torch.long))


def run_build(build, parent_list, selected, seq_lens, topk, depth, n):
    out = buffers(len(seq_lens), seq_lens, n)
    build(torch.tensor(parent_list, dtype=torch.long), torch.tensor(selected, dtype=torch.long),
          torch.tensor(seq_lens, dtype=torch.long), out["tree_mask"], out["positions"], out["retrive_index"],
          out["retrive_next_token"], out["retrive_next_sibling"], topk, depth, n, 0)
    return out


def run_verify(verify, tree, drafts, targets, steps):
    batch, n = len(drafts), len(drafts[0])
    predicts = torch.full((batch * n,), -1, dtype=torch.int32)
    accept_index = torch.full((batch, steps), -1, dtype=torch.int32)
    accept_token_num = torch.zeros(batch, dtype=torch.int32)
    verify(predicts=predicts, accept_index=accept_index, accept_token_num=accept_token_num,
           candidates=torch.tensor(drafts, dtype=torch.long), retrive_index=tree["retrive_index"],
           retrive_next_token=tree["retrive_next_token"], retrive_next_sibling=tree["retrive_next_sibling"],
           target_predict=torch.tensor(targets, dtype=torch.long))
    return dict(predicts=predicts, accept_index=accept_index, accept_token_num=accept_token_num)


def sglang_triton():
    """SGLang's Triton versions of the two ops, where the release has them, keyworded as the double's."""
    try:
        from sglang.kernels.ops.speculative import spec_tree
    except ImportError:
        return None

    def verify(**kwargs):
        spec_tree.verify_tree_greedy_triton(**dict((key.replace("retrive", "retrieve"), value)
                                                   for key, value in kwargs.items()))
    return spec_tree.sgl_build_tree_kernel_triton, verify


def main(doubles, trees, seed):
    sys.path.insert(0, doubles)
    import sgl_kernel
    rng = random.Random(seed)
    triton = sglang_triton()
    report = {"trees": 0, "against_triton": triton is not None, "differences": []}
    for case in range(trees):
        topk, depth = rng.choice([(1, 3), (2, 3), (4, 3), (2, 5), (8, 2)])
        n = rng.randint(2, min(1 + topk * depth, 9))
        batch = rng.randint(1, 3)
        made = [random_tree(rng, topk, depth, n) for _request in range(batch)]
        seq_lens = [rng.randint(1, 12) for _request in range(batch)]
        parent_list = [tree[0] for tree in made]
        selected = [tree[1] for tree in made]
        vocabulary = rng.choice([2, 3, 50])
        drafts = [[rng.randrange(vocabulary) for _node in range(n)] for _request in range(batch)]
        targets = [[rng.randrange(vocabulary) for _node in range(n)] for _request in range(batch)]
        steps = depth + 1
        tree = run_build(sgl_kernel.build_tree_kernel_efficient, parent_list, selected, seq_lens, topk, depth, n)
        verified = run_verify(sgl_kernel.verify_tree_greedy, tree, drafts, targets, steps)
        offset = 0
        for request, (_parent_list, _selected, parents) in enumerate(made):
            rows, positions, next_token, next_sibling = reference_tree(parents, seq_lens[request], n)
            width = seq_lens[request] + n
            mask = tree["tree_mask"][offset:offset + n * width].view(n, width)
            got = dict(rows=mask[:, seq_lens[request]:].tolist(), prefix=bool(mask[:, :seq_lens[request]].all()),
                       positions=tree["positions"][request * n:(request + 1) * n].tolist(),
                       next_token=tree["retrive_next_token"][request].tolist(),
                       next_sibling=tree["retrive_next_sibling"][request].tolist())
            want = dict(rows=rows, prefix=True, positions=positions, next_token=next_token, next_sibling=next_sibling)
            flat_targets = [targets[request][node] for node in range(n)]
            accepted = reference_verify(parents, drafts[request], flat_targets, steps)
            got["accepted"] = [index - request * n for index in verified["accept_index"][request].tolist()
                               if index >= 0][:int(verified["accept_token_num"][request]) + 1]
            want["accepted"] = accepted
            got["bonus"] = int(verified["predicts"][request * n + accepted[-1]])
            want["bonus"] = flat_targets[accepted[-1]]
            if got != want:
                report["differences"].append({"case": case, "request": request, "got": got, "want": want})
            offset += n * width
        if triton is not None:
            theirs = run_build(triton[0], parent_list, selected, seq_lens, topk, depth, n)
            their_verify = run_verify(triton[1], theirs, drafts, targets, steps)
            for name, ours in list(tree.items()) + list(verified.items()):
                other = theirs.get(name, their_verify.get(name))
                if not torch.equal(ours, other):
                    report["differences"].append({"case": case, "against": "triton", "tensor": name,
                                                  "got": ours.tolist(), "want": other.tolist()})
        report["trees"] += batch
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
