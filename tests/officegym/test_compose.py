"""compose.yaml, its Dockerfile and the server's health check: the Compose file is valid against the
Compose Specification's own JSON schema (as vendored by check-jsonschema, so no network) and keeps
its promises: secrets only from the environment, one loopback-only port (the gateway's), a gateway
balancing every replica without stickiness, health checks that gate start-up, and servers that
reach the PostgreSQL service."""

from __future__ import annotations

import copy
import json
import re
from importlib.resources import files
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
SECRETS = ("OFFICEGYM_ADMIN_TOKEN", "OFFICEGYM_POSTGRES_PASSWORD")
FILLED = {"OFFICEGYM_ADMIN_TOKEN": "t0ken", "OFFICEGYM_POSTGRES_PASSWORD": "s3cret-pw"}  # as a user would set them
# Compose interpolation: ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}.
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}")


@pytest.fixture(scope="module")
def validator():
    """A validator for the Compose Specification's schema, in the draft the schema declares."""
    schema = json.loads((files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json").read_text())
    assert schema["title"] == "Compose Specification"
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.fixture(scope="module")
def text() -> str:
    return COMPOSE.read_text()


@pytest.fixture(scope="module")
def compose(text) -> dict:
    return yaml.safe_load(text)


def interpolate(source: str, env: dict[str, str]) -> str:
    """The file as Compose sees it with `env` as the environment; raises KeyError naming every
    required variable that is missing."""
    missing = []

    def value(match: re.Match) -> str:
        name, colon, kind, arg = match.groups()
        given = env.get(name)
        unset = given is None or (colon == ":" and given == "")
        if kind == "?" and unset:
            missing.append(name)
            return ""
        if kind == "-" and unset:
            return arg
        return given or ""

    result = VARIABLE.sub(value, source.replace("$$", "\0")).replace("\0", "$")
    if missing:
        raise KeyError(sorted(set(missing)))
    return result


def errors(validator, document) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {key: str(value) for key, value in env.items()}


def healthcheck_command(service: dict) -> list[str]:
    test = service["healthcheck"]["test"]
    return ["CMD-SHELL", test] if isinstance(test, str) else test


def servers(compose: dict) -> dict[str, dict]:
    """The officegym server services."""
    return {name: service for name, service in compose["services"].items()
            if "OFFICEGYM_DATABASE_URL" in environment(service)}


def host_ports(service: dict) -> list[str]:
    """`host_ip:published` of each published port, whether written short or long."""
    found = []
    for port in service.get("ports", []):
        if isinstance(port, dict):
            found.append(f"{port.get('host_ip', '')}:{port.get('published', '')}")
        else:
            found.append(str(port).rsplit(":", 1)[0])
    return found


# --- the Compose Specification ---------------------------------------------------------------

def test_compose_file_is_valid_against_the_compose_specification(validator, compose):
    assert errors(validator, compose) == []


def test_compose_file_stays_valid_once_the_environment_is_filled_in(validator, text):
    resolved = yaml.safe_load(interpolate(text, FILLED))
    assert errors(validator, resolved) == []
    assert "${" not in json.dumps(resolved)


@pytest.mark.parametrize("break_it", [
    lambda doc: doc.update(servers=doc["services"]),                          # unknown top-level key
    lambda doc: doc["services"]["officegym"].update(ports=5),                 # ports is a list
    lambda doc: doc["services"]["officegym"].update(healtcheck={"test": ["CMD", "true"]}),  # typo
    lambda doc: doc["services"]["officegym"]["depends_on"]["postgres"].update(condition="service_happy"),
    lambda doc: doc["services"]["postgres"]["healthcheck"].update(every="5s"),
    lambda doc: doc["services"]["postgres"].update(restart=3),
    lambda doc: doc["volumes"].update({"bad name!": None}),
], ids=["top-level-key", "ports-5", "service-key-typo", "depends-on-condition", "healthcheck-key",
        "restart-type", "volume-name"])
def test_the_same_validator_rejects_broken_copies(validator, compose, break_it):
    broken = copy.deepcopy(compose)
    break_it(broken)
    assert errors(validator, broken), "a broken Compose file passed validation"


# --- what the file promises --------------------------------------------------------------------

def test_secrets_come_only_from_the_environment(compose, text):
    for name in SECRETS:
        # Required interpolations: never a default, never a literal.
        assert re.search(r"\$\{" + name + r":\?[^}]+\}", text), name
        assert not re.search(r"\$\{" + name + r"(:?-|\})", text), f"{name} must be required, without a default"
    server = environment(compose["services"]["officegym"])
    postgres = environment(compose["services"]["postgres"])
    assert re.fullmatch(r"\$\{OFFICEGYM_ADMIN_TOKEN:\?[^}]+\}", server["OFFICEGYM_ADMIN_TOKEN"])
    assert re.fullmatch(r"\$\{OFFICEGYM_POSTGRES_PASSWORD:\?[^}]+\}", postgres["POSTGRES_PASSWORD"])
    assert re.fullmatch(r"postgresql://officegym:\$\{OFFICEGYM_POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432/postgres",
                        server["OFFICEGYM_DATABASE_URL"])
    for service in compose["services"].values():
        for key, value in environment(service).items():
            if re.search(r"PASSWORD|TOKEN|SECRET", key):
                assert VARIABLE.fullmatch(value), f"{key} holds a literal secret"
    with pytest.raises(KeyError) as missing:
        interpolate(text, {})
    assert missing.value.args[0] == sorted(SECRETS)
    with pytest.raises(KeyError):
        interpolate(text, {"OFFICEGYM_ADMIN_TOKEN": "", "OFFICEGYM_POSTGRES_PASSWORD": "pw"})


def test_only_the_gateway_is_published_and_only_on_loopback(compose):
    services = compose["services"]
    assert "ports" not in services["postgres"] and "network_mode" not in services["postgres"]
    assert "ports" not in services["officegym"]  # replicas are reached through the gateway only
    assert services["gateway"]["ports"] == ["127.0.0.1:8765:8765"]
    for name, service in services.items():
        for port in host_ports(service):
            assert port.startswith("127.0.0.1:"), (name, port)
    server = environment(services["officegym"])
    assert server["OFFICEGYM_HOST"] == "0.0.0.0" and server["OFFICEGYM_PORT"] == "8765"


def haproxy() -> list[list[str]]:
    """deploy/haproxy.cfg as lists of words, comments left out."""
    lines = (ROOT / "deploy" / "haproxy.cfg").read_text().splitlines()
    return [line.split("#")[0].split() for line in lines if line.split("#")[0].strip()]


def test_the_gateway_balances_every_replica_without_sticky_sessions(compose, text):
    resolved = yaml.safe_load(interpolate(text, FILLED))
    gateway, server = resolved["services"]["gateway"], resolved["services"]["officegym"]
    assert gateway["depends_on"] == {"officegym": {"condition": "service_healthy"}}
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in gateway["volumes"]
    config = haproxy()
    assert ["balance", "roundrobin"] in config and ["mode", "http"] in config
    assert not any(words[0] in ("cookie", "stick", "stick-table", "hash-type") for words in config)
    (template,) = [words for words in config if words[0] == "server-template"]
    port = environment(server)["OFFICEGYM_PORT"]
    assert template[3] == f"officegym:{port}" and "check" in template and "resolvers" in template
    assert int(template[2]) >= 4  # room for `--scale officegym=4` and more
    assert ["bind", f":{gateway['ports'][0].rsplit(':', 1)[1]}"] in config
    assert ["http-check", "send", "meth", "GET", "uri", "/healthz"] in config
    (public,) = [arg for arg in server["command"] if arg.startswith("--public-url=")]
    assert public == "--public-url=http://" + gateway["ports"][0].rsplit(":", 1)[0]  # links go through it


def test_the_server_scales_with_compose(compose):
    """`docker compose up --scale officegym=4` needs a service that fixes no container name and
    publishes no host port (replicas would clash on either)."""
    server = compose["services"]["officegym"]
    assert "container_name" not in server and "ports" not in server and "hostname" not in server
    assert "gateway" in environment(server)["OFFICEGYM_ALLOWED_HOSTS"]


def test_every_service_has_a_health_check_and_servers_wait_for_postgres(compose):
    services = compose["services"]
    for service in services.values():
        assert {"test", "interval", "timeout", "retries"} <= set(service["healthcheck"])
    postgres = healthcheck_command(services["postgres"])
    assert postgres[:2] == ["CMD", "pg_isready"] and "--dbname=postgres" in postgres
    for name, service in servers(compose).items():
        check = healthcheck_command(service)
        assert check[:2] == ["CMD", "python"], name  # the slim image has no curl or wget
        port = environment(service)["OFFICEGYM_PORT"]
        assert f"urlopen('http://127.0.0.1:{port}/healthz'" in check[-1]
        assert not any(tool in " ".join(check) for tool in ("curl", "wget"))
        assert service["depends_on"] == {"postgres": {"condition": "service_healthy"}}


def test_the_server_reaches_the_postgres_service(compose, text):
    resolved = yaml.safe_load(interpolate(text, FILLED))
    url = urlsplit(environment(resolved["services"]["officegym"])["OFFICEGYM_DATABASE_URL"])
    postgres = environment(resolved["services"]["postgres"])
    assert url.scheme == "postgresql" and url.hostname == "postgres" and url.hostname in resolved["services"]
    assert url.port == 5432 and url.path == "/postgres"
    assert url.username == postgres["POSTGRES_USER"] and url.password == postgres["POSTGRES_PASSWORD"] == "s3cret-pw"
    command = resolved["services"]["officegym"]["command"]
    assert command[:2] == ["officegym", "serve"] and "--public-url=http://127.0.0.1:8765" in command


def test_the_world_cache_is_a_volume(compose):
    server = compose["services"]["officegym"]
    home = environment(server)["OFFICEGYM_HOME"]
    assert f"officegym-home:{home}" in server["volumes"] and "officegym-home" in compose["volumes"]
    assert any(v.startswith("postgres-data:") for v in compose["services"]["postgres"]["volumes"])


def test_dockerfile_builds_a_non_root_server_image(compose):
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    instructions = [line for line in lines if line and not line.startswith("#")]
    assert instructions[0] == "FROM python:3.11-slim"
    assert compose["services"]["officegym"]["build"] == "."
    users = [line.split()[1] for line in instructions if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert "EXPOSE 8765" in instructions and instructions[-1] == 'CMD ["officegym", "serve"]'
    home = environment(compose["services"]["officegym"])["OFFICEGYM_HOME"]
    assert f'VOLUME ["{home}"]' in instructions and f"OFFICEGYM_HOME={home}" in " ".join(instructions)
    assert any(line.startswith("RUN pip install ") for line in instructions)
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".venv", ".officegym", ".git", ".env", "**/__pycache__", ".pytest_cache"} <= ignored


# --- GET /healthz -------------------------------------------------------------------------------

def test_healthz_is_open_and_says_only_status_and_live_episodes(live_server):
    url = f"{live_server.base_url}/healthz"
    response = httpx.get(url)
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    body = response.json()
    assert body == {"status": "ok", "episodes": len(live_server.store.entries())}
    assert live_server.settings.admin_token not in response.text
    created = httpx.post(f"{live_server.base_url}/api/episodes", json={"task": "chat.set_topic"},
                         headers=live_server.admin)
    assert created.status_code == 201
    try:
        assert httpx.get(url).json()["episodes"] == body["episodes"] + 1
    finally:
        httpx.delete(f"{live_server.base_url}/api/episodes/{created.json()['id']}", headers=live_server.admin)
    assert httpx.get(url).json()["episodes"] == body["episodes"]
    assert httpx.post(url).status_code == 405
    assert httpx.get(f"{live_server.base_url}/healthz/extra").status_code == 404
