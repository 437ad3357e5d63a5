package io.jobwheel.worker;

import io.jobwheel.worker.xxl.IJobHandler;
import io.jobwheel.worker.xxl.XxlJob;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/** A {@link JobHandler} or {@link XxlJob} method, or an {@link IJobHandler}, as a processor. */
final class HandlerProcessor implements BasicProcessor {
    final String name;
    private final Object bean;
    private final Method method;
    private final Method init;
    private final Method destroy;
    private boolean initialized;

    private HandlerProcessor(String name, Object bean, Method method, Method init, Method destroy) {
        this.name = name;
        this.bean = bean;
        this.method = method;
        this.init = init;
        this.destroy = destroy;
    }

    /**
     * The handlers of bean's class (and its superclasses): its methods
     * annotated {@link JobHandler} or xxl-job's {@link XxlJob}; throws
     * IllegalArgumentException naming a method that cannot be one.
     */
    static List<HandlerProcessor> scan(Object bean) {
        if (bean == null) {
            throw new IllegalArgumentException("registerHandlers: the object is null");
        }
        List<HandlerProcessor> out = new ArrayList<>();
        for (Class<?> c = bean.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                JobHandler h = m.getAnnotation(JobHandler.class);
                XxlJob x = m.getAnnotation(XxlJob.class);
                if (h == null && x == null || m.isBridge()) {
                    continue;
                }
                String where = c.getName() + "." + m.getName();
                if (h != null && x != null) {
                    throw new IllegalArgumentException("@JobHandler and @XxlJob on " + where + ": use one of them");
                }
                String annotation = h != null ? "@JobHandler" : "@XxlJob";
                String name = h != null ? h.value() : x.value();
                String init = h != null ? h.init() : x.init();
                String destroy = h != null ? h.destroy() : x.destroy();
                where = annotation + " on " + where;
                if (name.isBlank()) {
                    throw new IllegalArgumentException(where + ": the name is empty");
                }
                if (Modifier.isStatic(m.getModifiers())) {
                    throw new IllegalArgumentException(where + ": the method is static; handlers are instance methods");
                }
                Class<?>[] p = m.getParameterTypes();
                if (p.length > 1 || p.length == 1 && p[0] != String.class && p[0] != TaskContext.class) {
                    throw new IllegalArgumentException(where
                            + ": a handler takes no argument, a String (the parameters) or a TaskContext");
                }
                m.setAccessible(true);
                out.add(new HandlerProcessor(name, bean, m, lifecycle(c, where, "init", init),
                        lifecycle(c, where, "destroy", destroy)));
            }
        }
        return out;
    }

    /** xxl-job's IJobHandler as the processor called name: its execute, init and destroy. */
    static HandlerProcessor of(String name, IJobHandler handler) {
        try {
            return new HandlerProcessor(name, handler, IJobHandler.class.getMethod("execute"),
                    IJobHandler.class.getMethod("init"), IJobHandler.class.getMethod("destroy"));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Method lifecycle(Class<?> c, String where, String what, String name) {
        if (name.isEmpty()) {
            return null;
        }
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            try {
                Method m = k.getDeclaredMethod(name);
                m.setAccessible(true);
                return m;
            } catch (NoSuchMethodException e) {
                // look further up
            }
        }
        throw new IllegalArgumentException(where + ": " + what + " method " + name
                + "() not found on " + c.getName() + " (it takes no argument)");
    }

    @Override
    public ProcessResult process(TaskContext ctx) throws Exception {
        synchronized (this) {
            if (!initialized && init != null) {
                call(init);
            }
            initialized = true;
        }
        ctx.handledSuccess = null;
        ctx.handledMsg = null;
        ctx.handledTimeout = false;
        Object ret;
        if (method.getParameterCount() == 0) {
            ret = call(method);
        } else if (method.getParameterTypes()[0] == String.class) {
            ret = call(method, ctx.getParams());
        } else {
            ret = call(method, ctx);
        }
        if (ret instanceof ProcessResult && ctx.handledSuccess == null) {
            return (ProcessResult) ret;
        }
        String msg = ctx.handledMsg;
        if (Boolean.FALSE.equals(ctx.handledSuccess)) {
            if (msg == null || msg.isEmpty()) {
                msg = ctx.handledTimeout ? "the handler said it timed out" : "the handler said it failed";
            } else if (ctx.handledTimeout) {
                msg = "timed out: " + msg;
            }
            return new ProcessResult(false, msg);
        }
        if (msg == null) {
            msg = ret == null ? "" : LogFormat.toText(ret instanceof ProcessResult ? ((ProcessResult) ret).getMsg() : ret);
        }
        return new ProcessResult(true, msg);
    }

    private Object call(Method m, Object... args) throws Exception {
        try {
            return m.invoke(bean, args);
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof Exception) {
                throw (Exception) t;
            }
            if (t instanceof Error) {
                throw (Error) t;
            }
            throw e;
        }
    }

    /** Runs the destroy method if the handler was initialized; says what went wrong, or null. */
    synchronized String destroy() {
        if (!initialized || destroy == null) {
            return null;
        }
        initialized = false;
        try {
            call(destroy);
            return null;
        } catch (Exception | Error e) {
            return "handler " + name + ": " + destroy.getName() + "() failed: " + e;
        }
    }
}
