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

``with_sort_keys`` returns None where the component cannot run: no ``javac``
(a Java runtime without the JDK), or compiling or loading it failed (then with
a warning, once per process). knuffle.spark then computes the same keys in a
vectorized Python UDF: the same order, slower.
"""

from __future__ import annotations

import hashlib
import os
import stat
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
# The jars that could not be built or loaded in this process: tried once.
_failed: set[str] = set()


def with_sort_keys(
    df: Any, column: str, rows: str, seed: str, tied: np.ndarray, places: np.ndarray,
    place_bits: int,
) -> Any:
    """``df`` with the int64 column ``column``: ``label << place_bits | place``
    of the row number in column ``rows`` (``place`` from the tied rows
    ``tied`` and their ``places``, 0 for the others), computed in the JVM;
    None where the component cannot run."""
    from py4j.protocol import Py4JError

    session = df.sparkSession
    context = session.sparkContext
    jar = _jar(context)
    if jar is None:
        return None
    try:
        return _keyed(df, context, column, rows, seed, tied, places, place_bits, jar)
    except Py4JError as error:
        _give_up(jar, f"loading its JVM component failed ({error})")
        return None


def _keyed(
    df: Any, context: Any, column: str, rows: str, seed: str, tied: np.ndarray,
    places: np.ndarray, place_bits: int, jar: Path,
) -> Any:
    from pyspark.sql import functions as F

    session = df.sparkSession
    gateway = context._gateway
    jvm = gateway.jvm
    sort_key = _loaded(context, jar).loadClass(_CLASS)
    create = next(m for m in sort_key.getMethods() if m.getName() == "create")
    with tempfile.TemporaryDirectory(prefix="knuffle-ties-") as folder:
        tied_file = ""
        if len(tied):
            # Through a file, not the gateway's socket: up to 64 MiB.
            tied_file = os.path.join(folder, "tied")
            with open(tied_file, "wb") as out:
                out.write(np.ascontiguousarray(tied, dtype="<i8").tobytes())
                out.write(np.ascontiguousarray(places, dtype="<i8").tobytes())
        args = gateway.new_array(jvm.java.lang.Object, 4)
        args[0] = context._jsc
        args[1] = bytearray(_knuffle.table_label_key(seed))
        args[2] = tied_file
        args[3] = place_bits
        udf = create.invoke(None, args)
    # A temporary function for as long as the column is resolved: the plan
    # returned holds the function itself, not its name.
    name = f"knuffle_sort_key_{uuid.uuid4().hex}"
    session._jsparkSession.udf().register(name, udf, jvm.org.apache.spark.sql.types.DataTypes.LongType)
    try:
        return df.withColumn(column, F.expr(f"{name}({rows})"))
    finally:
        session.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")


def _loaded(context: Any, jar: Path) -> Any:
    """The jar's class loader on the driver (a child of Spark's), once per
    JVM and jar; the jar is added to the context for its executors when the
    context does not have it (a context stopped and made again in the same
    JVM starts without it)."""
    jvm = context._gateway.jvm
    key = (id(context._gateway), str(jar))
    with _lock:
        if not any(str(u).endswith("/" + jar.name) for u in _iterate(context._jsc.sc().listJars())):
            context._jsc.addJar(str(jar))
        loader = _loaders.get(key)
        if loader is None:
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
    run left it in the cache; None without a ``javac``, or when it cannot be
    built (with a warning, once)."""
    from py4j.protocol import Py4JError

    sources = sorted(_SOURCES.glob("*.java"))
    try:
        jvm = context._gateway.jvm
        system = jvm.java.lang.System
        version = str(system.getProperty("java.specification.version"))
        java_home = str(system.getProperty("java.home"))
        class_path = str(system.getProperty("java.class.path"))
        spark_jars = _udf1(jvm).getProtectionDomain().getCodeSource()
        spark_jars = str(spark_jars.getLocation().toURI().getPath()) if spark_jars is not None else None
        spark_version = context.version
    except Py4JError as error:
        _give_up(Path("the JVM"), f"asking the JVM for its version and class path failed ({error})")
        return None
    release = version[2:] if version.startswith("1.") else version
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    digest.update(f"java {release}, spark {spark_version}".encode())
    jar = _cache_dir() / f"spark-{digest.hexdigest()[:20]}.jar"
    if str(jar) in _failed:
        return None
    if jar.exists():
        return jar
    javac = _javac(java_home)
    if javac is None:
        return None
    if not sources:
        _give_up(jar, "its Java sources are missing from the installed package")
        return None
    # Spark's jars: the folder of the one that holds UDF1 (pyspark's jars/,
    # or $SPARK_HOME/jars), and the driver's class path.
    paths = ([str(Path(spark_jars).parent / "*")] if spark_jars else []) + [class_path]
    # Java 8's javac has no --release.
    target = ["-source", "8", "-target", "8"] if release == "8" else ["--release", release]
    with tempfile.TemporaryDirectory(prefix="knuffle-jvm-") as build:
        command = [javac, *target, "-Xlint:-options", "-nowarn", "-d", build,
                   "-cp", os.pathsep.join(paths), *map(str, sources)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=300)
            failure = done.stderr.strip() if done.returncode != 0 else None
        except (OSError, subprocess.SubprocessError) as error:
            failure = str(error)
        if failure is not None:
            _give_up(jar, f"compiling its JVM component failed:\n{failure}")
            return None
        partial = jar.with_name(f"{jar.name}.{os.getpid()}.{uuid.uuid4().hex}.partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
            for path in sorted(Path(build).rglob("*.class")):
                out.write(path, path.relative_to(build).as_posix())
        os.replace(partial, jar)  # another process may have put the same jar there
    return jar


def _give_up(jar: Path, why: str) -> None:
    """Warns, once per jar and process, that the keys come from Python."""
    if str(jar) not in _failed:
        _failed.add(str(jar))
        warnings.warn(
            f"knuffle.spark: {why}; the sort keys are computed in Python (the same order, slower)",
            RuntimeWarning, stacklevel=_caller_level(),
        )


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside this package."""
    import sys

    package = str(Path(__file__).parent)
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _javac(java_home: str) -> str | None:
    """The ``javac`` of the JDK that runs Spark, else the first on PATH."""
    for home in (Path(java_home), Path(java_home).parent):  # Java 8's java.home is the JRE
        candidate = home / "bin" / "javac"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("javac")


def _cache_dir() -> Path:
    """``$XDG_CACHE_HOME/knuffle`` (``~/.cache/knuffle``), created if need
    be; where that cannot be written, a directory of this user's alone in the
    temporary directory (a jar found there is run: nobody else may write it)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    home = Path(base) / "knuffle"
    try:
        home.mkdir(parents=True, exist_ok=True)
        if os.access(home, os.W_OK):
            return home
    except OSError:
        pass
    uid = os.getuid() if hasattr(os, "getuid") else None
    shared = Path(tempfile.gettempdir()) / f"knuffle-{uid}"
    try:
        shared.mkdir(mode=0o700, exist_ok=True)
        info = shared.lstat()
        if (stat.S_ISDIR(info.st_mode) and info.st_uid == uid
                and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return shared
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="knuffle-"))
