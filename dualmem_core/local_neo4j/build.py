"""A real Neo4j Community 5.26 server for tests and local development.

Neo4j comes from Maven Central (``org.neo4j:neo4j``, the embedded Community edition)
and runs as an embedded database with its Bolt connector on 127.0.0.1, started by the
small ``java/Neo4jLauncher.java``. Nothing here downloads anything but Maven artifacts:

* :func:`ensure_built` resolves the jars once into ``~/.m2`` (``mvn dependency:build-classpath``),
  writes the classpath to a file and compiles the launcher with plain ``javac``;
* :class:`LocalNeo4j` starts the launcher in its own process group and stops that group;
* :func:`main_start` / :func:`main_stop` are the helpers behind a ``start``/``stop`` CLI.

Needs Java 17+ (a JDK for the one-time compile) and Maven for the first build.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreUnavailable

NEO4J_VERSION = "5.26.30"
HOST = "127.0.0.1"
READY_MARKER = "DUALMEM_NEO4J_READY"
FAILED_MARKER = "DUALMEM_NEO4J_FAILED"
MAIN_CLASS = "Neo4jLauncher"
LOG_FILE = "neo4j-launcher.log"  # the launcher's stdout+stderr, in the data dir
PID_FILE = "neo4j.pid"

_JAVA_SRC_DIR = Path(__file__).resolve().parent / "java"
_SOURCES = ("pom.xml", f"{MAIN_CLASS}.java")
_MIN_JAVA = 17

# JVM options. The --add-opens/--enable-native-access set mirrors what Neo4j 5.26's own
# neo4j.conf passes (java.nio, java.io, sun.nio.ch), widened with the packages Neo4j and
# its libraries (netty, lucene, eclipse-collections) reach into reflectively on Java 17.
# Without java.nio the page cache and native vector-index (HNSW) population fall back to
# slow paths and population can stall.
_OPENS = (
    "java.base/java.nio",
    "java.base/java.lang",
    "java.base/java.lang.reflect",
    "java.base/java.util",
    "java.base/java.util.concurrent",
    "java.base/java.util.concurrent.atomic",
    "java.base/java.io",
    "java.base/java.net",
    "java.base/sun.nio.ch",
    "java.base/sun.net.www.protocol.http",
    "java.base/jdk.internal.misc",
    "java.base/jdk.internal.ref",
    "jdk.unsupported/sun.misc",
)
JVM_FLAGS: tuple[str, ...] = (
    *(f"--add-opens={module}=ALL-UNNAMED" for module in _OPENS),
    "--enable-native-access=ALL-UNNAMED",
    # Small footprint for a test/dev server (Neo4j's production default is G1).
    "-XX:+UseSerialGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "-Djava.awt.headless=true",
    # Neo4j wraps its Lucene indexes (vector and fulltext) in an NRTCachingDirectory that keeps
    # new segments in heap buffers of a few KB. Lucene reads a 384-float vector that crosses
    # such a buffer's end by catching a BufferUnderflowException, so an HNSW search spent most
    # of its CPU filling in stack traces (seen with async-profiler). Without the cache, segments
    # are memory-mapped files and the search does no such work.
    "-Dorg.neo4j.kernel.api.impl.index.storage.DirectoryFactory.max_cached_mb=0",
)


class Neo4jUnavailable(StoreUnavailable):
    """The local Neo4j could not be built or started; the message says what to do."""


# --------------------------------------------------------------------------- build


@dataclass(frozen=True)
class LauncherBuild:
    """A compiled launcher and the Neo4j classpath it runs with."""

    cache_dir: Path
    java: str
    launcher_jar: Path
    classpath_file: Path

    @property
    def classpath(self) -> str:
        jars = self.classpath_file.read_text().strip()
        return f"{self.launcher_jar}{os.pathsep}{jars}"

    def command(
        self,
        data_dir: Path,
        port: int,
        heap: str = "512m",
        pagecache: str = "128m",
        extra_jvm_args: Sequence[str] = (),
        exit_with_parent: bool = False,
    ) -> list[str]:
        return [
            self.java,
            f"-Xms{heap}",
            f"-Xmx{heap}",
            *JVM_FLAGS,
            *extra_jvm_args,
            "-cp",
            self.classpath,
            MAIN_CLASS,
            "--data",
            str(data_dir),
            "--port",
            str(port),
            "--pagecache",
            pagecache,
            *(["--exit-with-parent"] if exit_with_parent else []),
        ]


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("dualmem")) / f"neo4j-{NEO4J_VERSION}"


def ensure_built(cache_dir: Path | None = None) -> LauncherBuild:
    """Resolve Neo4j's jars and compile the launcher into ``cache_dir``, once.

    The first call runs ``mvn dependency:build-classpath`` (offline first, then online)
    and ``javac``. Later calls are a quick no-op while the cache holds a build of the
    current sources, made with the same ``java``, whose jars are all still present.
    Safe to call from several processes at once (file lock).
    """
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    java = _find_java()
    build = LauncherBuild(
        cache_dir=cache_dir,
        java=java,
        launcher_jar=cache_dir / "dualmem-neo4j-launcher.jar",
        classpath_file=cache_dir / "classpath.txt",
    )
    digest = _sources_digest()
    if _is_built(build, digest):
        return build
    cache_dir.mkdir(parents=True, exist_ok=True)
    with _file_lock(cache_dir / ".build.lock"):
        if _is_built(build, digest):  # another process built it while we waited
            return build
        (cache_dir / "build.json").unlink(missing_ok=True)
        _check_java_version(java)
        _resolve_classpath(cache_dir, build.classpath_file)
        _compile(java, build)
        stamp = {"sources_sha256": digest, "java": java, "neo4j": NEO4J_VERSION}
        _write_atomic(cache_dir / "build.json", json.dumps(stamp, indent=2) + "\n")
    return build


def _sources_digest() -> str:
    h = hashlib.sha256(NEO4J_VERSION.encode())
    for name in _SOURCES:
        h.update(name.encode() + b"\0" + (_JAVA_SRC_DIR / name).read_bytes())
    return h.hexdigest()


def _is_built(build: LauncherBuild, digest: str) -> bool:
    try:
        stamp = json.loads((build.cache_dir / "build.json").read_text())
        jars = build.classpath_file.read_text().strip()
    except (OSError, ValueError):
        return False
    if stamp.get("sources_sha256") != digest or stamp.get("java") != build.java:
        return False
    if not build.launcher_jar.is_file():
        return False
    # ~/.m2 may have been cleaned since the classpath was written.
    return bool(jars) and all(os.path.exists(p) for p in jars.split(os.pathsep))


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _find_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise Neo4jUnavailable(
            f"Java {_MIN_JAVA}+ not found (no `java` on PATH, JAVA_HOME unset): install "
            f"openjdk-{_MIN_JAVA}-jdk-headless (a JDK: the launcher is compiled once with javac)"
        )
    return java


def _check_java_version(java: str) -> None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60).stderr
    except (OSError, subprocess.SubprocessError) as e:
        raise Neo4jUnavailable(f"could not run {java} -version: {e}") from e
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    major = int(m.group(1)) if m else 0
    if major == 1 and m and m.group(2):  # "1.8.0_392"
        major = int(m.group(2))
    if major < _MIN_JAVA:
        raise Neo4jUnavailable(
            f"Java {_MIN_JAVA}+ not found: {java} is {out.strip().splitlines()[0] if out else '?'}"
            f"; install openjdk-{_MIN_JAVA}-jdk-headless or point JAVA_HOME at Java 17 or 21"
        )


def _resolve_classpath(cache_dir: Path, classpath_file: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise Neo4jUnavailable(
            f"Maven (mvn) not found; it is needed once to fetch org.neo4j:neo4j:{NEO4J_VERSION} "
            "from Maven Central: install maven"
        )
    pom = cache_dir / "pom.xml"
    shutil.copyfile(_JAVA_SRC_DIR / "pom.xml", pom)
    tmp = cache_dir / "classpath.txt.tmp"
    base = [mvn, "-q", "-B", "-Dstyle.color=never", "-f", str(pom)]
    base += ["dependency:build-classpath", f"-Dmdep.outputFile={tmp}"]
    base += [f"-Dmdep.pathSeparator={os.pathsep}"]
    # Offline first: no network needed when ~/.m2 already has everything.
    result = None
    for offline in (["-o"], []):
        tmp.unlink(missing_ok=True)
        try:
            result = subprocess.run(
                base[:1] + offline + base[1:],
                cwd=cache_dir,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=1800,
            )
        except subprocess.TimeoutExpired as e:
            raise Neo4jUnavailable(
                f"Maven took over 30 min to resolve org.neo4j:neo4j:{NEO4J_VERSION}"
            ) from e
        if result.returncode == 0 and tmp.is_file() and tmp.read_text().strip():
            os.replace(tmp, classpath_file)
            return
    output = (result.stdout + result.stderr) if result else ""
    output = re.sub(r"\x1b\[[0-9;]*m", "", output)  # Maven 3.8 colours even with -B -q
    raise Neo4jUnavailable(
        f"Maven could not resolve org.neo4j:neo4j:{NEO4J_VERSION} (no network to Maven Central?)"
        f"; command: {' '.join(base)}\n{_tail_text(output, 20)}"
    )


def _compile(java: str, build: LauncherBuild) -> None:
    javac = Path(os.path.realpath(java)).parent / "javac"
    javac_cmd = str(javac) if javac.is_file() else shutil.which("javac")
    if javac_cmd is None:
        raise Neo4jUnavailable(
            f"javac not found next to {java} or on PATH: install openjdk-{_MIN_JAVA}-jdk-headless "
            "(a JDK, not only a JRE, is needed once to compile the launcher)"
        )
    tmp_dir = build.cache_dir / "classes.tmp"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    tmp_dir.mkdir(parents=True)
    jars = build.classpath_file.read_text().strip()
    cmd = [javac_cmd, "--release", str(_MIN_JAVA), "-nowarn", "-encoding", "UTF-8"]
    cmd += ["-cp", jars, "-d", str(tmp_dir), str(_JAVA_SRC_DIR / f"{MAIN_CLASS}.java")]
    result = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise Neo4jUnavailable(
            f"javac failed to compile {MAIN_CLASS}.java against Neo4j {NEO4J_VERSION}:\n"
            f"{_tail_text(result.stdout + result.stderr, 20)}"
        )
    # One jar file rather than a class directory: replaced atomically, never half-written.
    tmp_jar = build.launcher_jar.with_name(build.launcher_jar.name + ".tmp")
    with zipfile.ZipFile(tmp_jar, "w", zipfile.ZIP_DEFLATED) as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for cls in sorted(tmp_dir.rglob("*.class")):
            jar.write(cls, cls.relative_to(tmp_dir).as_posix())
    os.replace(tmp_jar, build.launcher_jar)
    shutil.rmtree(tmp_dir, ignore_errors=True)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)

def _tail_text(text: str, n: int) -> str:
    return "\n".join(text.rstrip().splitlines()[-n:]) or "(nothing logged)"
