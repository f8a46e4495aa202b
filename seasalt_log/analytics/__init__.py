"""SQL analytics over the store: safe read-only queries, named reports (``seasalt stats``)
and Parquet export. (``seasalt rebuild`` is the store's own: :mod:`seasalt_log.store.rebuild`.)

- :func:`run_query` runs user SQL on a read-only connection that cannot touch files;
- :func:`run_report` / :func:`list_reports` run the packaged reports (``reports/*.sql``);
- :func:`export_parquet` writes the events and every read model as Parquet files.
"""

from .output import FORMATS, Result, write_result
from .parquet import export_parquet
from .query import QueryRefusedError, connect_readonly, run_query
from .reports import Report, list_reports, run_report

__all__ = ["run_query", "connect_readonly", "QueryRefusedError",
           "Report", "list_reports", "run_report", "export_parquet", "Result", "write_result",
           "FORMATS"]
