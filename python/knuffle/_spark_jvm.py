"""knuffle.spark's JVM component: each row's sort key in the table order
computed in the executors' JVM, so that no row passes through a Python worker.

The component is three small Java classes shipped with the package
(``knuffle/_jvm``: ChaCha20 labels, the tied rows' places, the UDF). On first
use they are compiled with the ``javac`` of the JDK that runs Spark (else the
first ``javac`` on ``PATH``), against the running Spark's own jars and for
its Java version, into a jar in the user's cache directory
(``$XDG_CACHE_HOME/knuffle``, by default ``~/.cache/knuffle``), named by a hash
of the sources and of both versions; later sessions reuse it. The jar is added
to the session (``SparkContext.addJar``), so executors on a cluster fetch it
from the driver.

``with_sort_keys`` returns None where the component cannot run: Spark Connect
(no JVM in this process), or no ``javac`` (a Java runtime without the JDK).
knuffle.spark then computes the same keys in a vectorized Python UDF: the same
order, slower.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from knuffle import _knuffle

_SOURCES = Path(__file__).with_name("_jvm")
_CLASS = "knuffle.spark.SortKey"
_lock = threading.Lock()
# (JVM, jar) -> the class loader of the jar on the driver.
_loaders: dict[tuple[int, str], Any] = {}


def with_sort_keys(
    df: Any, column: str, rows: str, seed: str, tied: np.ndarray, places: np.ndarray,
    place_bits: int,
) -> Any:
    """``df`` with the int64 column ``column``: ``label << place_bits | place``
    of the row number in column ``rows`` (``place`` from the tied rows
    ``tied`` and their ``places``, 0 for the others), computed in the JVM;
    None where the component cannot run."""
    session = df.sparkSession
    try:
        jsession = session._jsparkSession
        context = session.sparkContext
        gateway = context._gateway
    except (AttributeError, RuntimeError):  # Spark Connect: no JVM here
        return None
    jar = _jar(context)
    if jar is None:
        return None
    jvm = gateway.jvm
    sort_key = _loaded(context, jar).loadClass(_CLASS)
    create = next(m for m in sort_key.getMethods() if m.getName() == "create")
    args = gateway.new_array(jvm.java.lang.Object, 5)
    args[0] = context._jsc
    args[1] = bytearray(_knuffle.table_label_key(seed))
    args[2] = bytearray(np.ascontiguousarray(tied, dtype="<i8").tobytes())
    args[3] = bytearray(np.ascontiguousarray(places, dtype="<i8").tobytes())
    args[4] = jvm.java.lang.Integer(place_bits)
    udf = create.invoke(None, args)
    # A temporary function for as long as the column is resolved: the plan
    # returned holds the function itself, not its name.
    name = f"knuffle_sort_key_{uuid.uuid4().hex}"
    jsession.udf().register(name, udf, jvm.org.apache.spark.sql.types.DataTypes.LongType)
    try:
        from pyspark.sql import functions as F

        return df.withColumn(column, F.expr(f"{name}({rows})"))
    finally:
        session.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")


def _loaded(context: Any, jar: Path) -> Any:
    """The jar's class loader on the driver (a child of Spark's), after
    adding the jar to the session for the executors; once per JVM and jar."""
    jvm = context._gateway.jvm
    key = (id(context._gateway), str(jar))
    with _lock:
        loader = _loaders.get(key)
        if loader is None:
            if not any(str(u).endswith("/" + jar.name) for u in _iterate(context._jsc.sc().listJars())):
                context._jsc.addJar(str(jar))
            urls = context._gateway.new_array(jvm.java.net.URL, 1)
            urls[0] = jvm.java.io.File(str(jar)).toURI().toURL()
            loader = jvm.java.net.URLClassLoader(urls, _udf1(jvm).getClassLoader())
            _loaders[key] = loader
        return loader


def _iterate(seq: Any) -> list[Any]:
    """The elements of a Scala Seq of the JVM."""
    return [seq.apply(i) for i in range(seq.size())]


def _udf1(jvm: Any) -> Any:
    return jvm.java.lang.Class.forName("org.apache.spark.sql.api.java.UDF1")


def _jar(context: Any) -> Path | None:
    """The component's jar for this JVM and Spark, compiled if no earlier
    run left it in the cache; None without a ``javac``."""
    jvm = context._gateway.jvm
    system = jvm.java.lang.System
    version = str(system.getProperty("java.specification.version"))
    release = version[2:] if version.startswith("1.") else version
    sources = sorted(_SOURCES.glob("*.java"))
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    digest.update(f"java {release}, spark {context.version}".encode())
    jar = _cache_dir() / f"spark-{digest.hexdigest()[:20]}.jar"
    if jar.exists():
        return jar
    javac = _javac(str(system.getProperty("java.home")))
    if javac is None:
        return None
    spark_jars = Path(str(_udf1(jvm).getProtectionDomain().getCodeSource().getLocation().toURI().getPath())).parent
    with tempfile.TemporaryDirectory(prefix="knuffle-jvm-") as build:
        command = [javac, "--release", release, "-Xlint:-options", "-nowarn", "-d", build,
                   "-cp", str(spark_jars / "*"), *map(str, sources)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            warnings.warn(
                "knuffle.spark: compiling its JVM component failed, so the sort keys are "
                f"computed in Python (the same order, slower):\n{done.stderr.strip()}",
                RuntimeWarning, stacklevel=4,
            )
            return None
        partial = jar.with_name(f"{jar.name}.{os.getpid()}.{uuid.uuid4().hex}.partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
            for path in sorted(Path(build).rglob("*.class")):
                out.write(path, path.relative_to(build).as_posix())
        os.replace(partial, jar)  # another process may have put the same jar there
    return jar


def _javac(java_home: str) -> str | None:
    """The ``javac`` of the JDK that runs Spark, else the first on PATH."""
    for home in (Path(java_home), Path(java_home).parent):  # Java 8's java.home is the JRE
        candidate = home / "bin" / "javac"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("javac")


def _cache_dir() -> Path:
    """``$XDG_CACHE_HOME/knuffle`` (``~/.cache/knuffle``), created if need
    be; a directory of the user's in the temporary directory where that
    cannot be written."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for directory in (Path(base) / "knuffle", Path(tempfile.gettempdir()) / f"knuffle-{os.getuid()}"):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            if os.access(directory, os.W_OK):
                return directory
        except OSError:
            pass
    return Path(tempfile.mkdtemp(prefix="knuffle-"))
