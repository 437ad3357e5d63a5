package io.jobwheel.examples;

import io.jobwheel.worker.Worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Stops a worker gracefully on SIGTERM and SIGINT, so that its run()
 * returns and main exits 0, as the Go and Python workers do.
 *
 * <p>A JVM shutdown hook would stop it too, but the JVM exits with status
 * 143 after a SIGTERM whatever the hook does; handling the signal itself
 * (sun.misc.Signal, which every JDK since 6 has, in module jdk.unsupported)
 * keeps the JVM from starting its shutdown at all. Reached by reflection,
 * so the build has no warning about an internal API; where it is missing,
 * a shutdown hook stops the worker instead (exit status 143).
 */
final class Signals {
    private Signals() {
    }

    static void stopOn(Worker w, String... names) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            InvocationHandler h = (proxy, method, args) -> {
                if ("handle".equals(method.getName())) {
                    w.stop();
                    return null;
                }
                return defaults(proxy, method, args);
            };
            Object proxy = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[]{handler}, h);
            Method handle = signal.getMethod("handle", signal, handler);
            for (String n : names) {
                handle.invoke(null, signal.getConstructor(String.class).newInstance(n), proxy);
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Runtime.getRuntime().addShutdownHook(new Thread(w::close, "jobwheel-shutdown"));
        }
    }

    private static Object defaults(Object proxy, Method m, Object[] args) {
        switch (m.getName()) {
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == args[0];
            default:
                return "Signals.handler";
        }
    }
}
