"""Both backends against the one declared interface, both ways: every member of :class:`storage.Store`
is implemented by each backend with the same signature, and neither backend has a public method the
interface lacks (so no caller ever needs to ask which backend it holds). ``Store`` is composed of one
contract per aggregate (:data:`storage.store.CONTRACTS`), each declaring its own methods, none twice."""

from __future__ import annotations

import inspect

import pytest

from storage import SqliteStore, Store
from storage.store import CONTRACTS

#: Public members of one backend that are not part of the interface: the sqlite-utils handle, which
#: SQLite-only checks and tests use. Properties only: a public method must be in the interface.
BACKEND_HANDLES = {SqliteStore: {"db"}}


def _backends():
    pytest.importorskip("psycopg")
    from storage import PostgresStore

    return [SqliteStore, PostgresStore]


def _declared(contract: type) -> dict[str, object]:
    """The public methods and properties ``contract`` declares itself."""
    return {name: member for name, member in vars(contract).items()
            if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))}


def _interface() -> dict[str, object]:
    return {name: member for contract in CONTRACTS for name, member in _declared(contract).items()}


def _implementation(cls: type, name: str) -> object | None:
    """Where ``cls`` defines ``name`` itself (or in a class it mixes in), not inheriting the interface's."""
    for klass in cls.__mro__:
        if klass is Store or klass in CONTRACTS:
            return None
        if name in vars(klass):
            return vars(klass)[name]
    return None


def _params(func) -> list[tuple]:
    return [(p.name, p.default, p.kind) for p in inspect.signature(func).parameters.values()]


def _returns(func) -> str:
    returns = inspect.signature(func).return_annotation
    if hasattr(func, "__wrapped__") and returns == "Iterator[None]":  # a @contextlib.contextmanager
        return "AbstractContextManager[None]"
    return returns


def test_the_interface_declares_the_stores_methods():
    members = _interface()
    assert len(members) > 100
    assert {"transaction", "close", "dispose", "workspace", "for_workspace", "hold_person"} <= set(members)


def test_the_store_is_its_contracts_and_no_method_is_declared_in_two():
    assert set(Store.__mro__) >= set(CONTRACTS) and len(CONTRACTS) > 10
    assert not _declared(Store), "declare a method in its aggregate's contract, not in Store"
    seen: dict[str, str] = {}
    for contract in CONTRACTS:
        assert _declared(contract), f"{contract.__name__} declares nothing"
        for name in _declared(contract):
            assert name not in seen, f"{name} is declared in {seen[name]} and {contract.__name__}"
            seen[name] = contract.__name__
    every = {name for name in dir(Store) if not name.startswith("_")}
    assert set(seen) == every, f"members of Store in no contract: {every - set(seen)}"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda contract: contract.__name__)
def test_each_backend_implements_every_method_of_each_contract(backend, contract):
    cls = _backends()[backend == "postgres"]
    assert contract in cls.__mro__
    _check_implements(cls, _declared(contract))


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_each_backend_implements_every_member_of_the_interface_with_its_signature(backend):
    cls = _backends()[backend == "postgres"]
    _check_implements(cls, _interface())


def _check_implements(cls: type, members: dict[str, object]) -> None:
    for name, member in members.items():
        ours = _implementation(cls, name)
        assert ours is not None, f"{cls.__name__} does not implement {name}"
        if isinstance(member, property):
            assert isinstance(ours, property), f"{cls.__name__}.{name} is not a property"
            continue
        assert callable(ours), f"{cls.__name__}.{name}"
        assert _params(ours) == _params(member), f"{cls.__name__}.{name}: parameters differ"
        assert _returns(ours) == _returns(member), f"{cls.__name__}.{name}: return type differs"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_no_backend_has_a_public_method_the_interface_lacks(backend):
    cls = _backends()[backend == "postgres"]
    declared = set(_interface())
    extra = {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")} - declared
    assert extra == BACKEND_HANDLES.get(cls, set()), f"{cls.__name__} has more than the interface: {extra}"
    for name in BACKEND_HANDLES.get(cls, ()):
        assert isinstance(inspect.getattr_static(cls, name), property), name


def test_every_interface_member_documents_its_contract_and_the_backends_do_not_repeat_it():
    for name, member in _interface().items():
        doc = (member.fget if isinstance(member, property) else member).__doc__
        assert doc and doc.strip(), f"Store.{name} has no docstring"
        for cls in _backends():
            ours = _implementation(cls, name)
            ours = ours.fget if isinstance(ours, property) else ours
            assert ours.__doc__ is None, f"{cls.__name__}.{name} has a docstring: write it in Store"
