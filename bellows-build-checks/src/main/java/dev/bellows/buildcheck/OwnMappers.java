package dev.bellows.buildcheck;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * One Jackson, configured once (issue 32): no class of a module makes a Jackson mapper of its own
 * ({@code new ObjectMapper(...)}, {@code JsonMapper.builder()}, {@code YAMLMapper.builder()}, of
 * Jackson 3 or 2) but those of core's {@code dev.bellows.json.internal}, whose mappers everyone
 * else uses (a use that needs more takes a reader or writer from them, or {@code rebuild()}s one
 * for settings only a mapper has, which keeps their factory and buffer pool). Read from the
 * class files' constant pools: the methods a class calls are named there, whatever the source.
 */
final class OwnMappers {

    /** Where the shared mappers are made. */
    static final String HOME = "dev/bellows/json/internal/";

    /** The mapper classes whose construction is looked for (a class name ending in {@code Mapper}). */
    private static final List<String> JACKSON = List.of("tools/jackson/", "com/fasterxml/jackson/");

    private OwnMappers() {
    }

    /** The classes under {@code classes} that make a mapper, as messages that say what to do. */
    static List<String> check(String artifact, Path classes) throws IOException {
        Set<String> found = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String name = classes.relativize(file).toString().replace('\\', '/');
                if (name.startsWith(HOME) || name.equals("module-info.class")) {
                    continue;
                }
                try (InputStream in = Files.newInputStream(file)) {
                    for (String call : mapperCalls(in)) {
                        found.add(name.substring(0, name.length() - ".class".length()).replace('/', '.') + " calls " + call);
                    }
                }
            }
        }
        if (found.isEmpty()) {
            return List.of();
        }
        return List.of(artifact + " makes Jackson mappers of its own:\n  " + String.join("\n  ", found)
                + "\nUse dev.bellows.json.internal.Jackson's (JSON, YAML), with a reader or writer made from them for"
                + " other settings (DEVELOPERS.md, \"Dependencies worth knowing\").");
    }

    /** The mapper constructions and builders a class file's constant pool names ({@code Class.method}). */
    static List<String> mapperCalls(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] classNames = new int[count];          // Class -> its name's Utf8
        int[][] refs = new int[count][];            // Methodref / InterfaceMethodref -> {class, nameAndType}
        int[] nameOf = new int[count];              // NameAndType -> its name's Utf8
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7 -> classNames[i] = in.readUnsignedShort();
                case 10, 11 -> refs[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
                case 12 -> {
                    nameOf[i] = in.readUnsignedShort();
                    in.readUnsignedShort();
                }
                case 3, 4, 9, 17, 18 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;                            // a long or double takes two entries
                }
                case 8, 16, 19, 20 -> in.readUnsignedShort();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        List<String> calls = new ArrayList<>();
        for (int[] ref : refs) {
            if (ref == null) {
                continue;
            }
            String owner = utf8[classNames[ref[0]]];
            String method = utf8[nameOf[ref[1]]];
            if (JACKSON.stream().anyMatch(owner::startsWith) && owner.endsWith("Mapper")
                    && (method.equals("<init>") || method.equals("builder"))) {
                calls.add(owner.substring(owner.lastIndexOf('/') + 1) + (method.equals("<init>") ? ".<init>" : ".builder"));
            }
        }
        return calls;
    }
}
