package dev.bellows.buildcheck;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A module's public API as text, read from its compiled classes by reflection (classes are
 * loaded, never initialised): every public type, and every public or protected nested type of
 * one (protected only in a class that can be extended), outside {@code .internal} packages and,
 * when the module has a {@code module-info}, inside its packages exported to everyone. A type is
 * one line (its modifiers, kind, name with type parameters, record components, supertypes and
 * sealed permits) followed by its members indented by four spaces: constructors, methods and
 * fields declared public or protected (those of a non-public superclass too, which reach users
 * through it) and enum constants, each with its full generic signature. Types and members are
 * sorted, so the text changes only when the API does.
 */
final class PublicApi {

    static final String INDENT = "    ";

    private PublicApi() {
    }

    /** The API of the classes under {@code classes}, loaded through {@code loader}. */
    static List<String> render(Path classes, ClassLoader loader) throws IOException {
        Set<String> exported = exportedPackages(classes);
        TreeMap<String, List<String>> types = new TreeMap<>();
        for (String name : classNames(classes)) {
            String pkg = name.lastIndexOf('.') < 0 ? "" : name.substring(0, name.lastIndexOf('.'));
            if (isInternal(pkg) || (exported != null && !exported.contains(pkg))) {
                continue;
            }
            Class<?> type;
            try {
                type = Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException("cannot load " + name + " to read its API: " + e, e);
            }
            if (isApi(type)) {
                types.put(type.getName(), type(type));
            }
        }
        List<String> lines = new ArrayList<>();
        for (List<String> type : types.values()) {
            if (!lines.isEmpty()) {
                lines.add("");
            }
            lines.addAll(type);
        }
        return lines;
    }

    /** Whether a package is a {@code .internal} one or below one. */
    static boolean isInternal(String pkg) {
        return ("." + pkg + ".").contains(".internal.");
    }

    private static Set<String> exportedPackages(Path classes) throws IOException {
        Path moduleInfo = classes.resolve("module-info.class");
        if (!Files.exists(moduleInfo)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(moduleInfo)) {
            return ModuleDescriptor.read(in).exports().stream().filter(e -> !e.isQualified())
                    .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        }
    }

    private static List<String> classNames(Path classes) throws IOException {
        try (Stream<Path> files = Files.walk(classes)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> classes.relativize(f).toString())
                    .filter(f -> !f.endsWith("module-info.class") && !f.endsWith("package-info.class"))
                    .map(f -> f.substring(0, f.length() - ".class".length())
                            .replace(classes.getFileSystem().getSeparator(), "."))
                    .sorted().toList();
        }
    }

    private static boolean isApi(Class<?> type) {
        if (type.isSynthetic() || type.isAnonymousClass() || type.isLocalClass()) {
            return false;
        }
        Class<?> outer = type.getDeclaringClass();
        if (outer == null) {
            return Modifier.isPublic(type.getModifiers());
        }
        return isApi(outer) && visible(type.getModifiers(), outer);
    }

    /** Public, or protected in a class a user can extend. */
    private static boolean visible(int modifiers, Class<?> owner) {
        return Modifier.isPublic(modifiers)
                || (Modifier.isProtected(modifiers) && !Modifier.isFinal(owner.getModifiers()) && !owner.isInterface());
    }

    private static List<String> type(Class<?> type) {
        List<String> lines = new ArrayList<>();
        lines.add(header(type));
        TreeSet<String> members = new TreeSet<>();
        if (type.isEnum()) {
            for (Field field : type.getDeclaredFields()) {
                if (field.isEnumConstant()) {
                    members.add("enum constant " + field.getName());
                }
            }
        }
        for (Class<?> owner = type; owner != null; owner = owner.getSuperclass()) {
            if (owner != type && Modifier.isPublic(owner.getModifiers())) {
                break;                  // a public superclass's members are its own API
            }
            for (Constructor<?> constructor : owner == type ? type.getDeclaredConstructors() : new Constructor<?>[0]) {
                if (!constructor.isSynthetic() && visible(constructor.getModifiers(), type)) {
                    members.add(executable(constructor, type, ""));
                }
            }
            for (Method method : owner.getDeclaredMethods()) {
                if (!method.isSynthetic() && !method.isBridge() && visible(method.getModifiers(), type)) {
                    members.add(executable(method, type, method.getGenericReturnType().getTypeName() + " "));
                }
            }
            for (Field field : owner.getDeclaredFields()) {
                if (!field.isSynthetic() && !field.isEnumConstant() && visible(field.getModifiers(), type)) {
                    members.add(modifiers(field, type) + field.getGenericType().getTypeName() + " " + field.getName());
                }
            }
        }
        members.forEach(member -> lines.add(INDENT + member));
        return lines;
    }

    private static String header(Class<?> type) {
        StringBuilder line = new StringBuilder();
        int modifiers = type.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL
                | Modifier.ABSTRACT);
        String kind;
        if (type.isAnnotation()) {
            kind = "@interface";
            modifiers &= ~(Modifier.ABSTRACT | Modifier.STATIC);
        } else if (type.isInterface()) {
            kind = "interface";
            modifiers &= ~(Modifier.ABSTRACT | Modifier.STATIC);
        } else if (type.isEnum()) {
            kind = "enum";
            modifiers &= ~(Modifier.STATIC | Modifier.FINAL | Modifier.ABSTRACT);
        } else if (type.isRecord()) {
            kind = "record";
            modifiers &= ~(Modifier.STATIC | Modifier.FINAL);
        } else {
            kind = "class";
        }
        line.append(Modifier.toString(modifiers)).append(' ');
        if (type.isSealed()) {
            line.append("sealed ");
        }
        line.append(kind).append(' ').append(type.getName()).append(typeParameters(type.getTypeParameters()));
        if (type.isRecord()) {
            line.append(Arrays.stream(type.getRecordComponents()).map(PublicApi::component)
                    .collect(Collectors.joining(", ", "(", ")")));
        }
        Type superclass = type.getGenericSuperclass();
        if (superclass != null && !type.isEnum() && !type.isRecord() && superclass != Object.class) {
            line.append(" extends ").append(superclass.getTypeName());
        }
        List<String> interfaces = Arrays.stream(type.getGenericInterfaces()).map(Type::getTypeName)
                .filter(name -> !(type.isAnnotation() && name.equals("java.lang.annotation.Annotation"))).toList();
        if (!interfaces.isEmpty()) {
            line.append(type.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
        }
        if (type.isSealed()) {
            line.append(Arrays.stream(type.getPermittedSubclasses()).map(Class::getName).sorted()
                    .collect(Collectors.joining(", ", " permits ", "")));
        }
        return line.toString();
    }

    private static String executable(Executable executable, Class<?> owner, String returnType) {
        StringBuilder line = new StringBuilder(modifiers(executable, owner));
        if (executable instanceof Method method && method.isDefault()) {
            line.append("default ");
        }
        String parameters = typeParameters(executable.getTypeParameters());
        if (!parameters.isEmpty()) {
            line.append(parameters).append(' ');
        }
        line.append(returnType).append(executable instanceof Constructor<?> ? owner.getName() : executable.getName());
        Type[] types = executable.getGenericParameterTypes();
        if (executable instanceof Constructor<?> && types.length < executable.getParameterCount()) {
            types = executable.getParameterTypes();         // an inner class's: its outer instance is not generic
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            String name = types[i].getTypeName();
            if (executable.isVarArgs() && i == types.length - 1 && name.endsWith("[]")) {
                name = name.substring(0, name.length() - 2) + "...";
            }
            names.add(name);
        }
        line.append(names.stream().collect(Collectors.joining(", ", "(", ")")));
        Type[] exceptions = executable.getGenericExceptionTypes();
        if (exceptions.length > 0) {
            line.append(Arrays.stream(exceptions).map(Type::getTypeName).collect(Collectors.joining(", ", " throws ", "")));
        }
        return line.toString();
    }

    /** The modifiers that are API (not {@code synchronized}, {@code native}, ...), then a space. */
    private static String modifiers(Member member, Class<?> owner) {
        int mask = Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL | Modifier.ABSTRACT;
        if (member instanceof Field) {
            mask |= Modifier.VOLATILE | Modifier.TRANSIENT;
            mask &= ~Modifier.ABSTRACT;
        }
        int modifiers = member.getModifiers() & mask;
        if (owner.isInterface()) {
            modifiers &= ~Modifier.ABSTRACT;
        }
        String text = Modifier.toString(modifiers);
        return text.isEmpty() ? "" : text + " ";
    }

    private static String typeParameters(TypeVariable<?>[] variables) {
        if (variables.length == 0) {
            return "";
        }
        return Arrays.stream(variables).map(variable -> {
            List<String> bounds = Arrays.stream(variable.getBounds()).map(Type::getTypeName)
                    .filter(bound -> !bound.equals("java.lang.Object")).toList();
            return bounds.isEmpty() ? variable.getName() : variable.getName() + " extends " + String.join(" & ", bounds);
        }).collect(Collectors.joining(", ", "<", ">"));
    }

    private static String component(RecordComponent component) {
        return component.getGenericType().getTypeName() + " " + component.getName();
    }
}
