# The planning service without torch: the simulation extra is not installed here.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY models ./models
COPY service ./service
COPY api ./api
COPY cli ./cli
RUN pip install . && useradd --create-home --uid 10001 zeroplan

USER zeroplan
ENV ZEROPLAN_HOST=0.0.0.0 ZEROPLAN_PORT=8000 ZEROPLAN_SIM_DB_PATH=/home/zeroplan/simulations.sqlite3
EXPOSE 8000
# Ready means the service takes requests; the port is the one it serves on (ZEROPLAN_PORT).
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD python -c "import os, sys, urllib.request; port = os.environ.get('ZEROPLAN_PORT', '8000'); sys.exit(urllib.request.urlopen(f'http://127.0.0.1:{port}/readyz', timeout=2).status != 200)"
# zeroplan serve reads every ZEROPLAN_* variable (workers, token, limits); logs are JSON lines on stderr.
CMD ["zeroplan", "serve"]
