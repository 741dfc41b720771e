package dev.bellows.json.internal;

import java.lang.reflect.Constructor;
import tools.jackson.core.JacksonException;
import tools.jackson.core.Version;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.deser.ValueInstantiators;
import tools.jackson.databind.deser.std.StdValueInstantiator;
import tools.jackson.databind.introspect.AnnotatedConstructor;

/**
 * Calls a constructor that takes properties (a record's, the usual tool arguments)
 * through {@link Constructor#newInstance}, not through Jackson 3's
 * {@code MethodHandle.invokeWithArguments}, which spreads its arguments anew on every call:
 * about 260 bytes of method types and handles per bound record, once per tool call (Jackson 2
 * called the constructor by reflection). What is called, with which values, and what a
 * constructor's exception becomes are Jackson's own: only the way of calling differs.
 */
final class DirectCreators extends JacksonModule {

    @Override
    public String getModuleName() {
        return "bellows-direct-creators";
    }

    @Override
    public Version version() {
        return Version.unknownVersion();
    }

    @Override
    public void setupModule(SetupContext context) {
        context.addValueInstantiators(new ValueInstantiators() {
            @Override
            public ValueInstantiator findValueInstantiator(DeserializationConfig config,
                                                           BeanDescription.Supplier description) {
                return null;
            }

            @Override
            public ValueInstantiator modifyValueInstantiator(DeserializationConfig config,
                                                             BeanDescription.Supplier description,
                                                             ValueInstantiator made) {
                // Jackson's own instantiator only (a custom one calls what it likes), over a
                // constructor callable as Jackson would make it so: made accessible when the
                // mapper overrides access modifiers (its default) and the class's module lets it.
                if (made.getClass() == StdValueInstantiator.class
                        && ((StdValueInstantiator) made).getWithArgsCreator() instanceof AnnotatedConstructor creator
                        && creator.getParameterCount() >= 1
                        && callable(creator.getAnnotated(), config)) {
                    return new Direct((StdValueInstantiator) made, creator.getAnnotated());
                }
                return made;
            }
        });
    }

    private static boolean callable(Constructor<?> constructor, DeserializationConfig config) {
        return constructor.canAccess(null) || config.canOverrideAccessModifiers() && constructor.trySetAccessible();
    }

    /** Jackson's instantiator, calling the properties' constructor by reflection. */
    private static final class Direct extends StdValueInstantiator {
        private final Constructor<?> constructor;

        Direct(StdValueInstantiator made, Constructor<?> constructor) {
            super(made);
            this.constructor = constructor;
        }

        @Override
        public Object createFromObjectWith(DeserializationContext context, Object[] args) throws JacksonException {
            try {
                return constructor.newInstance(args);
            } catch (Exception e) {
                // as Jackson's own: an InvocationTargetException is unwrapped to the constructor's exception
                return context.handleInstantiationProblem(_valueClass, args, rewrapCtorProblem(context, e));
            }
        }
    }
}
