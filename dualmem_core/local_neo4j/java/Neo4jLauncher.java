import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.SettingValueParsers;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;

/**
 * Embedded Neo4j Community 5.26 with its Bolt connector on 127.0.0.1, for dualmem's
 * tests and local development. Started and stopped by dualmem_core/local_neo4j/server.py.
 *
 * <pre>java ... Neo4jLauncher --data DIR --port PORT [--pagecache 128m] [--exit-with-parent]</pre>
 *
 * DIR is the Neo4j home: the store goes to DIR/data, Neo4j's own logs to DIR/logs.
 * Stdout carries exactly one line, "DUALMEM_NEO4J_READY bolt://127.0.0.1:PORT", once the
 * default database is available; errors go to stderr and exit with status 1. It runs until
 * SIGTERM/SIGINT (a shutdown hook stops Neo4j cleanly), or, with --exit-with-parent, also
 * until the process that started it dies (so a crashed test run leaves no server behind).
 */
public final class Neo4jLauncher {
    private static final String HOST = "127.0.0.1";

    public static void main(String[] args) {
        Path data = null;
        int port = -1;
        String pagecache = "128m";
        boolean exitWithParent = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--data" -> data = Path.of(require(args[i], value));
                    case "--port" -> port = Integer.parseInt(require(args[i], value));
                    case "--pagecache" -> pagecache = require(args[i], value);
                    case "--exit-with-parent" -> {
                        exitWithParent = true;
                        continue;
                    }
                    default -> throw new IllegalArgumentException("unknown argument " + args[i]);
                }
                i++;
            }
        } catch (RuntimeException e) {
            fail(e.getMessage(), null);
        }
        if (data == null || port <= 0 || port > 65535) {
            fail("usage: Neo4jLauncher --data DIR --port PORT [--pagecache 128m]"
                    + " [--exit-with-parent]", null);
        }
        if (exitWithParent) {
            watchParent();
        }

        // Keep stdout for the ready line only: anything else that a library prints there
        // goes to stderr (which the Python manager sends to the same log file).
        PrintStream stdout = System.out;
        System.setOut(System.err);

        DatabaseManagementService service = null;
        try {
            Path home = data.toAbsolutePath().normalize();
            Files.createDirectories(home);
            service = new DatabaseManagementServiceBuilder(home)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                    .setConfig(HttpConnector.enabled, false)
                    .setConfig(HttpsConnector.enabled, false)
                    .setConfig(GraphDatabaseSettings.auth_enabled, false)
                    .setConfig(GraphDatabaseSettings.pagecache_memory,
                            SettingValueParsers.BYTES.parse(pagecache))
                    // Java field is still called udc_enabled; the setting is dbms.usage_report.enabled.
                    .setConfig(GraphDatabaseSettings.udc_enabled, false)
                    .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                    .setConfig(GraphDatabaseSettings.logs_directory, home.resolve("logs"))
                    // Netty's default 5 s quiet period (per event loop group) makes every
                    // stop take ~10 s; a test server has no in-flight work worth waiting for.
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout,
                            Duration.ofSeconds(2))
                    .build();
            DatabaseManagementService started = service;
            Runtime.getRuntime().addShutdownHook(new Thread(started::shutdown, "dualmem-neo4j-shutdown"));
            String name = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;
            if (!service.database(name).isAvailable(Duration.ofSeconds(120).toMillis())) {
                throw new IllegalStateException("database '" + name + "' did not become available");
            }
        } catch (Throwable e) {
            if (service != null) {
                try {
                    service.shutdown();
                } catch (Throwable ignored) {
                    // already failing; report the first error
                }
            }
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            fail("Neo4j failed to start on " + HOST + ":" + port + ": " + root.getMessage(), e);
        }

        stdout.println("DUALMEM_NEO4J_READY bolt://" + HOST + ":" + port);
        stdout.flush();

        try {
            new CountDownLatch(1).await(); // until SIGTERM/SIGINT runs the shutdown hook
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String require(String flag, String value) {
        if (value == null) {
            throw new IllegalArgumentException("missing value for " + flag);
        }
        return value;
    }

    /** Exit (running the shutdown hook) once this process is re-parented: its parent died. */
    private static void watchParent() {
        long parent = parentPid();
        Thread watcher = new Thread(() -> {
            while (parentPid() == parent) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.err.println("DUALMEM_NEO4J parent process " + parent + " is gone; shutting down");
            System.exit(0);
        }, "dualmem-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static long parentPid() {
        return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    }

    private static void fail(String message, Throwable cause) {
        System.err.println("DUALMEM_NEO4J_FAILED " + message);
        if (cause != null) {
            cause.printStackTrace(System.err);
        }
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }
}
