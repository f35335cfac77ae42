"""The layer rule (docs/architecture.md): ``domain`` ← ``projections`` ← ``service`` ← ``workers``.

Each package imports only from the layers below it, never upward; the one
exception is the ``tongiaki worker`` command, which imports the worker lazily,
inside the command. No module-level import cycle between project modules, and
no package binds a name that shadows one of its own modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("domain", "projections", "service", "workers")
ALLOWED = {
    "domain": {"domain"},
    "projections": {"domain", "projections"},
    "service": {"domain", "projections", "service"},
    "workers": {"domain", "projections", "service", "workers"},
}
# (module, imported package): allowed inside a function only
LAZY = {("service.cli.worker", "workers")}


def modules() -> dict[str, Path]:
    found = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(module: str, path: Path) -> list[tuple[str, bool, int]]:
    """(imported module, at module level?, line) for every import in the file."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    top = set()
    for node in tree.body:
        top.add(id(node))
        if isinstance(node, ast.If):  # TYPE_CHECKING blocks count as module level
            top.update(id(n) for n in node.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found.extend((name, id(node) in top, node.lineno) for name in names)
    return found


MODULES = modules()


def test_every_layer_has_modules():
    assert {m.split(".")[0] for m in MODULES} == set(LAYERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_nothing_from_a_layer_above_its_own(module):
    layer = module.split(".")[0]
    wrong = []
    for name, at_top, line in imports(module, MODULES[module]):
        target = name.split(".")[0]
        if target not in LAYERS or target in ALLOWED[layer]:
            continue
        if (module, target) in LAZY and not at_top:
            continue
        wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports {name}")
    assert not wrong, "layer rule broken:\n" + "\n".join(wrong)


def test_no_import_cycle_between_project_modules():
    graph = {
        module: {n for n, at_top, _ in imports(module, path) if at_top and n in MODULES}
        for module, path in MODULES.items()
    }
    # a module's package __init__ runs first when it is imported: that is not a cycle
    for module, targets in graph.items():
        targets.discard(module)
        for i in range(1, module.count(".") + 1):
            targets.discard(module.rsplit(".", i)[0])
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(found)


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every back edge of a depth-first walk, as the cycle it closes."""
    state: dict[str, int] = {}
    found = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return found


def test_no_package_binds_a_name_that_shadows_one_of_its_modules():
    shadowed = []
    for module, path in MODULES.items():
        if path.name != "__init__.py":
            continue
        submodules = {p.stem for p in path.parent.glob("*.py")} | {
            p.name for p in path.parent.iterdir() if (p / "__init__.py").exists()
        }
        tree = ast.parse(path.read_text())
        for node in tree.body:
            bound: list[str] = []
            if isinstance(node, ast.ImportFrom):
                bound = [
                    a.asname or a.name
                    for a in node.names
                    # ``from pkg import mod`` binds the module itself: no shadow
                    if f"{node.module}.{a.name}" != f"{module}.{a.asname or a.name}"
                ]
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                bound = [node.name]
            elif isinstance(node, ast.Assign):
                bound = [t.id for t in node.targets if isinstance(t, ast.Name)]
            shadowed += [f"{module}.{n}" for n in bound if n in submodules]
    assert not shadowed, "names that hide a module of the same name: " + ", ".join(shadowed)


def test_the_checker_sees_an_upward_import(tmp_path):
    """The rule test is not vacuous: a domain module importing the service is found."""
    bad = tmp_path / "bad.py"
    bad.write_text("import json\nfrom service.play.games import GameService\n")
    assert ("service.play.games", True, 2) in imports("domain.bad", bad)
    lazy = tmp_path / "lazy.py"
    lazy.write_text("def f():\n    from workers.jobs import run_worker\n")
    assert ("workers.jobs", False, 2) in imports("service.lazy", lazy)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a -> b -> c -> a"]


# Inside service/, its packages by capability (docs/architecture.md), each floor using
# only the floors below it, lazily or not: no circle, no arrow back up (issue 27).
SERVICE_FLOORS = (
    {"errors", "runtime", "store", "i18n"},  # the ground: vocabulary, plumbing, storage, words
    # time; the log; accounts' choices; the read side on a standby: over the store
    {"timing", "transparency", "preferences", "replication"},
    {"play"},
    # beside each other, none using another
    {"live", "audit", "notifications", "chat", "notes", "vacation", "invitations", "rematch"},
    {"forks"},  # analysis forks: over play, beside the rest
    {"leagues"},  # leagues open their tables as private tables (invitations)
    {"identity"},  # accounts people keep: sign-in mails go out as notifications' do
    {"profiles"},  # a player's page, names, deletion: over play, identity and the read models
    {"http", "bootstrap"},  # bootstrap builds the services; http serves them
    {"app"},  # the web app over them
    {"servers"},
    {"cli"},
)


def service_floor(module: str) -> tuple[str, int] | None:
    parts = module.split(".")
    if parts[0] != "service" or len(parts) < 2:
        return None
    for floor, names in enumerate(SERVICE_FLOORS):
        if parts[1] in names:
            return parts[1], floor
    raise AssertionError(f"{module}: service/{parts[1]} is on no floor of SERVICE_FLOORS")


def test_service_packages_use_only_the_floors_below_them():
    wrong = []
    for module, path in MODULES.items():
        mine = service_floor(module)
        if mine is None:
            continue
        for name, _, line in imports(module, path):
            target = service_floor(name) if name.startswith("service.") else None
            if target is None or target[0] == mine[0]:
                continue
            if target[1] >= mine[1]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({mine[0]}) imports {name}")
    assert not wrong, "a service package uses one beside or above it:\n" + "\n".join(wrong)
