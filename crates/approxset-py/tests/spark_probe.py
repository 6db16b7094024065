"""Starting a local Spark with a small Java helper on its classpath, so
that Spark's own BloomFilter builds filters and answers lookups in bulk
(one py4j call per batch, not per key). Used by test_spark.py and by
tests/spark/make_golden.py.

Keys cross py4j packed: longs as little-endian 8-byte words in one byte[],
strings joined by a newline (the keys hold none), and answers come back as
one byte (0 or 1) per key."""

import os
import pathlib
import shutil
import subprocess
import tempfile

JAVA = r"""
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import org.apache.spark.util.sketch.BloomFilter;

public final class ApproxsetSparkProbe {
  private static LongBuffer longs(byte[] keys) {
    return ByteBuffer.wrap(keys).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
  }

  private static String[] strings(String keys) {
    return keys.isEmpty() ? new String[0] : keys.split("\n", -1);
  }

  private static byte[] bytes(BloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  public static byte[] mightContainLongs(byte[] filter, byte[] keys) throws IOException {
    BloomFilter f = BloomFilter.readFrom(filter);
    LongBuffer b = longs(keys);
    byte[] out = new byte[b.remaining()];
    for (int i = 0; i < out.length; i++) out[i] = (byte) (f.mightContainLong(b.get(i)) ? 1 : 0);
    return out;
  }

  public static byte[] mightContainStrings(byte[] filter, String keys) throws IOException {
    BloomFilter f = BloomFilter.readFrom(filter);
    String[] s = strings(keys);
    byte[] out = new byte[s.length];
    for (int i = 0; i < out.length; i++) out[i] = (byte) (f.mightContainString(s[i]) ? 1 : 0);
    return out;
  }

  public static byte[] buildLongs(int version, long n, long bits, int seed, byte[] keys)
      throws IOException {
    BloomFilter f = BloomFilter.create(BloomFilter.Version.values()[version - 1], n, bits, seed);
    LongBuffer b = longs(keys);
    for (int i = 0; i < b.remaining(); i++) f.putLong(b.get(i));
    return bytes(f);
  }

  public static byte[] buildStrings(int version, long n, long bits, int seed, String keys)
      throws IOException {
    BloomFilter f = BloomFilter.create(BloomFilter.Version.values()[version - 1], n, bits, seed);
    for (String s : strings(keys)) f.putString(s);
    return bytes(f);
  }

  public static byte[] buildBinary(int version, long n, long bits, int seed, byte[] key)
      throws IOException {
    BloomFilter f = BloomFilter.create(BloomFilter.Version.values()[version - 1], n, bits, seed);
    f.putBinary(key);
    return bytes(f);
  }

  public static boolean mightContainBinary(byte[] filter, byte[] key) throws IOException {
    return BloomFilter.readFrom(filter).mightContainBinary(key);
  }
}
"""


def available():
    """Why a Spark session cannot start here, or None when it can."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("javac") is None or shutil.which("java") is None:
        return "no JDK (java and javac) on PATH"
    return None


def compile_probe(workdir):
    """Compiles the helper against PySpark's jars into ``workdir``."""
    import pyspark

    jars = pathlib.Path(pyspark.__file__).parent / "jars"
    sketch = sorted(jars.glob("spark-sketch_*.jar"))
    src = pathlib.Path(workdir) / "ApproxsetSparkProbe.java"
    src.write_text(JAVA)
    subprocess.run(
        ["javac", "-nowarn", "-cp", str(sketch[0]), "-d", str(workdir), str(src)],
        check=True,
    )
    return str(workdir)


def start(app="approxset-spark", cores=2):
    """A local SparkSession with the helper on the driver's classpath, and
    the helper's class (its static methods callable through py4j)."""
    from pyspark.sql import SparkSession

    workdir = tempfile.mkdtemp(prefix="approxset-spark-")
    classes = compile_probe(workdir)
    import sys

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName(app)
        .config("spark.driver.extraClassPath", classes)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(cores))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    probe = spark._jvm.ApproxsetSparkProbe
    return spark, probe


def pack_longs(keys):
    """Longs as one little-endian byte string."""
    import struct

    return struct.pack(f"<{len(keys)}q", *keys)


def might_contain_longs(probe, filter_bytes, keys):
    """Spark's mightContainLong for each key, as a list of bools."""
    return [b == 1 for b in bytes(probe.mightContainLongs(filter_bytes, pack_longs(keys)))]


def might_contain_strings(probe, filter_bytes, keys):
    """Spark's mightContainString for each key (no key holds a newline)."""
    return [b == 1 for b in bytes(probe.mightContainStrings(filter_bytes, "\n".join(keys)))]


def stat_bloom_filter(df, column, expected, fpp):
    """The bytes of ``df.stat.bloomFilter(column, expected, fpp)`` (what
    Spark writes by default: version 2 in Spark 4)."""
    jf = df._jdf.stat().bloomFilter(column, expected, fpp)
    out = df.sparkSession._jvm.java.io.ByteArrayOutputStream()
    jf.writeTo(out)
    return bytes(out.toByteArray())
