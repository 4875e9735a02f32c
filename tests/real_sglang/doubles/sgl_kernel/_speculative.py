"""The two ops of EAGLE's tree speculation, in PyTorch on the CPU, written from the contract of sgl_kernel's CUDA
kernels (``build_tree_kernel_efficient``, ``verify_tree_greedy``; 0.5.23 asks for them as ``*_cpu`` with the
same arguments). Both fill preallocated tensors in place, as the kernels do. The trees are a few tokens per
request: plain loops over Python lists, written back once.

The draft tree of request b has ``n = draft_token_num`` nodes: node 0 is the verified token, node i (1..n-1)
the draft token chosen as ``selected_index[b, i-1]``, an index into the flattened scores of every draft step.
That index's parent block is ``selected_index // topk``: block 0 is the verified token; block k > 0 expanded
the token whose score index is ``parent_list[b, k]``, which is node p+1 when ``selected_index[b, p]`` is it (a
parent that was not selected leaves the node out of the tree, as the kernel does).
"""

import torch

FULL_MASK, QLEN_ONLY, QLEN_ONLY_BITPACKING = 0, 1, 2


def _parents(selected, parent_row, topk):
    """Each node's parent node (None for node 0, and for a node whose parent was not selected)."""
    parents = [None]
    for index in selected:
        block = index // topk
        if block == 0:
            parents.append(0)
            continue
        token = parent_row[block]
        parents.append(selected.index(token) + 1 if token in selected else None)
    return parents


def build_tree_kernel_efficient(parent_list, selected_index, verified_seq_len, tree_mask, positions, retrive_index,
                                retrive_next_token, retrive_next_sibling, topk, depth, draft_token_num,
                                tree_mask_mode=FULL_MASK):
    """Fill, for every request: its rows of ``tree_mask`` (each node sees the verified token and its own
    ancestors among the draft tokens; the columns of the prefix are the caller's), ``positions`` (the prefix
    length plus the node's depth), ``retrive_index`` (the node's row in the flattened batch) and the tree as
    first-child / next-sibling links (``retrive_next_token``, ``retrive_next_sibling``; -1 for none, which the
    caller has set), children in ascending node order."""
    if int(tree_mask_mode) == QLEN_ONLY_BITPACKING:
        raise RuntimeError("sgl_kernel.build_tree_kernel_efficient: the test double has no bit-packed tree mask")
    n = int(draft_token_num)
    seq_lens = [int(length) for length in verified_seq_len.tolist()]
    selected_rows, parent_rows = selected_index.tolist(), parent_list.tolist()
    mask = tree_mask.view(-1)
    next_token, next_sibling = retrive_next_token.tolist(), retrive_next_sibling.tolist()
    flat_positions, mask_start = [], 0
    for request, seq_len in enumerate(seq_lens):
        parents = _parents(selected_rows[request], parent_rows[request], int(topk))
        full = int(tree_mask_mode) == FULL_MASK
        row_length, first = (seq_len + n, seq_len) if full else (n, 0)
        base = mask_start if full else request * n * n
        for node in range(n):
            row = torch.zeros(n, dtype=torch.bool)
            row[0] = True
            ancestor, node_depth = node, 0
            while ancestor not in (0, None):
                row[ancestor] = True
                node_depth += 1
                ancestor = parents[ancestor]
            start = base + node * row_length + first
            mask[start:start + n] = row.to(mask.dtype)
            flat_positions.append(seq_len + node_depth)
        for node in range(n - 1, 0, -1):  # prepend each child: siblings end up in ascending order
            parent = parents[node]
            if parent is None:
                continue
            if next_token[request][parent] != -1:
                next_sibling[request][node] = next_token[request][parent]
            next_token[request][parent] = node
        mask_start += seq_len * n + n * n
    positions.view(-1)[:len(flat_positions)] = torch.tensor(flat_positions, dtype=positions.dtype)
    retrive_index.copy_(torch.arange(len(seq_lens) * n, dtype=retrive_index.dtype).view(len(seq_lens), n))
    retrive_next_token.copy_(torch.tensor(next_token, dtype=retrive_next_token.dtype))
    retrive_next_sibling.copy_(torch.tensor(next_sibling, dtype=retrive_next_sibling.dtype))


def verify_tree_greedy(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token,
                       retrive_next_sibling, target_predict):
    """Greedy verification: from the verified token, step down the tree to the first child (in sibling order)
    whose token is what the target predicts after its parent, at most ``accept_index.shape[1] - 1`` times.
    ``accept_index`` gets the accepted nodes' flattened rows (the verified token first), ``accept_token_num``
    how many draft tokens were accepted, and ``predicts`` the target's token after each accepted node (the
    last one's is the bonus token). ``target_predict`` is indexed by flattened row, as the kernel does."""
    steps = accept_index.shape[1]
    rows, children, siblings = retrive_index.tolist(), retrive_next_token.tolist(), retrive_next_sibling.tolist()
    drafts, targets = candidates.tolist(), target_predict.reshape(-1).tolist()
    flat_predicts = predicts.view(-1)
    for request in range(candidates.shape[0]):
        last = rows[request][0]
        accepted = [last]
        node = 0
        for _step in range(1, steps):
            node = children[request][node]
            while node != -1 and drafts[request][node] != targets[last]:
                node = siblings[request][node]
            if node == -1:
                break
            flat_predicts[last] = targets[last]
            last = rows[request][node]
            accepted.append(last)
        accept_index[request, :len(accepted)] = torch.tensor(accepted, dtype=accept_index.dtype)
        accept_token_num[request] = len(accepted) - 1
        flat_predicts[last] = targets[last]


# 0.5.23 asks the CPU build of sgl_kernel for the same ops under these names.
build_tree_kernel_efficient_cpu = build_tree_kernel_efficient
verify_tree_greedy_cpu = verify_tree_greedy
