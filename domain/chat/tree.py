"""Pure functions over a session's message tree: paths, leaves, siblings, branches and where each one forks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.models import CompactionRecord, MessageId, TreeNode

CONTEXT_RESET = "reset"  # the trigger of a Reset context in the compaction log: no summary from here on


@dataclass(frozen=True)
class Branch:
    """One leaf of the tree and its path: `fork_id` is the first message of the part only this branch has (None
    for a tree with one branch), `fork_parent_id` the message it leaves its siblings at (None: at the root)."""

    number: int  # 1-based, in the order the leaves were written
    leaf_id: MessageId
    fork_id: MessageId | None
    fork_parent_id: MessageId | None
    length: int  # messages on the path
    active: bool
    preview: str  # the fork message's text (else the leaf's), shortened


class Tree:
    """A session's messages as a tree, indexed once (nodes in seq order, as MessageRepository.tree gives them)."""

    def __init__(self, nodes: Sequence[TreeNode]) -> None:
        self.nodes = {n.id: n for n in nodes}
        self.children: dict[MessageId | None, list[TreeNode]] = {}
        for node in nodes:
            self.children.setdefault(node.parent_id, []).append(node)

    def path(self, leaf_id: MessageId | None) -> list[TreeNode]:
        """The nodes from the root to `leaf_id`, root first."""
        out: list[TreeNode] = []
        node = self.nodes.get(leaf_id) if leaf_id is not None else None
        while node is not None:
            out.append(node)
            node = self.nodes.get(node.parent_id) if node.parent_id is not None else None
        return out[::-1]

    def newest_leaf_under(self, message_id: MessageId) -> MessageId:
        """The most recently written leaf at or below the message (the branch that was last worked on there)."""
        best: TreeNode | None = None
        todo = [self.nodes[message_id]]
        while todo:
            node = todo.pop()
            kids = self.children.get(node.id, [])
            if not kids and (best is None or node.seq > best.seq):
                best = node
            todo.extend(kids)
        assert best is not None, "a subtree has at least one leaf"
        return best.id

    def siblings(self, message_id: MessageId) -> list[TreeNode]:
        """The message and its siblings (children of the same parent, roots for a root), oldest first."""
        return self.children.get(self.nodes[message_id].parent_id, [])

    def leaves(self) -> list[TreeNode]:
        """Every leaf, in the order written."""
        return sorted((n for n in self.nodes.values() if n.id not in self.children), key=lambda n: n.seq)

    def branches(self) -> list[Branch]:
        """Every branch (one per leaf), oldest leaf first."""
        out = []
        for number, leaf in enumerate(self.leaves(), start=1):
            path = self.path(leaf.id)
            fork = self.fork_of(path)
            shown = fork or leaf
            out.append(Branch(number, leaf.id, fork.id if fork else None, fork.parent_id if fork else None,
                              len(path), leaf.active, " ".join(shown.preview.split())[:80]))
        return out

    def fork_of(self, path: Sequence[TreeNode]) -> TreeNode | None:
        """The first message of the path's own part: the deepest one whose parent (or the root) has other
        children; None when the path shares nothing with another branch."""
        for node in reversed(path):
            if len(self.children.get(node.parent_id, [])) > 1:
                return node
        return None


def checkpoint_for(path: Sequence[MessageId], records: Sequence[CompactionRecord]) -> CompactionRecord | None:
    """The compaction that holds on this path: among those whose last summarized message lies on it (so every
    message it summarizes does), and that are newer than the last Reset context made on it, the one covering the
    most, the newest of equals. None: send the originals."""
    position = {mid: i for i, mid in enumerate(path)}
    on_path = [(position[r.through_id], order, r) for order, r in enumerate(records)
               if r.through_id is not None and r.through_id in position]
    reset = max((order for _, order, r in on_path if r.trigger == CONTEXT_RESET), default=-1)
    covered = [(at, order, r) for at, order, r in on_path if order > reset and r.summary]
    return max(covered, key=lambda item: item[:2])[2] if covered else None
