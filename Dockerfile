# The officegym server as an image, for compose.yaml (PostgreSQL + officegym, to scale out).
# Build: docker compose build   (or: docker build -t officegym .)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# Only the package: .dockerignore keeps out the virtualenv, caches, git, tests and local worlds.
# scripts/install-package builds the wheel and installs it with the pinned dependencies, as the
# test suite's installed-wheel test does.
COPY . /tmp/officegym-src
RUN pip install uv \
    && UV_NO_CACHE=1 sh /tmp/officegym-src/scripts/install-package /tmp/officegym-src "$(command -v python)" \
    && pip uninstall -y uv \
    && rm -rf /tmp/officegym-src

# An unprivileged user; the world cache is its only writable state and lives in a volume.
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/officegym officegym \
    && mkdir -p /var/lib/officegym \
    && chown officegym:officegym /var/lib/officegym
ENV OFFICEGYM_HOME=/var/lib/officegym \
    OFFICEGYM_HOST=0.0.0.0 \
    OFFICEGYM_PORT=8765
VOLUME ["/var/lib/officegym"]
USER officegym
WORKDIR /home/officegym

EXPOSE 8765
CMD ["officegym", "serve"]
