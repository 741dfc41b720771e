package dev.bellows.tool;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The tools of an object's methods annotated {@link dev.bellows.tool.annotation.Tool}, each
 * turned into the typed-tool machinery: a schema generated from the parameters, arguments
 * checked and coerced, errors for the model. {@link ToolRegistry#registerMethods(Object)}
 * registers them in one call.
 */
final class MethodTools {

    private MethodTools() {
    }

    /**
     * The object's {@code @Tool} methods as tools, in the order of their tool names.
     *
     * @throws IllegalArgumentException when the object has no {@code @Tool} method, or one
     *                                  cannot be a tool (not public, static, no description,
     *                                  a parameter type without a schema); the message says
     *                                  which method and what to change
     */
    public static List<Tool> of(Object target) {
        Objects.requireNonNull(target, "target");
        List<Method> methods = new ArrayList<>();
        for (Method method : target.getClass().getMethods()) {
            if (method.isAnnotationPresent(dev.bellows.tool.annotation.Tool.class)) {
                methods.add(method);
            }
        }
        for (Method method : target.getClass().getDeclaredMethods()) {
            if (method.isAnnotationPresent(dev.bellows.tool.annotation.Tool.class)
                    && !Modifier.isPublic(method.getModifiers())) {
                throw new IllegalArgumentException("@Tool method " + target.getClass().getSimpleName() + "."
                        + method.getName() + " is not public; make it public so that it can be called");
            }
        }
        if (methods.isEmpty()) {
            throw new IllegalArgumentException(target.getClass().getName() + " has no public method annotated"
                    + " @dev.bellows.tool.annotation.Tool");
        }
        List<Tool> tools = new ArrayList<>();
        for (Method method : methods) {
            if (Modifier.isStatic(method.getModifiers())) {
                throw new IllegalArgumentException("@Tool method " + target.getClass().getSimpleName() + "."
                        + method.getName() + " is static; tools are methods of the object you register");
            }
            tools.add(new MethodTool(target, method, method.getAnnotation(dev.bellows.tool.annotation.Tool.class)));
        }
        tools.sort(Comparator.comparing(Tool::name));   // getMethods() has no order; the catalog should
        return List.copyOf(tools);
    }
}
