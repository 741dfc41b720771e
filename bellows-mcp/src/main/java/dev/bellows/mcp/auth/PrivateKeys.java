package dev.bellows.mcp.auth;

import com.nimbusds.jose.JWSAlgorithm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;

/**
 * Reads a PKCS#8 PEM private key ({@code -----BEGIN PRIVATE KEY-----}) for
 * {@code private_key_jwt}, and the JWS algorithm it signs with. Messages name the file, never
 * its content.
 */
final class PrivateKeys {

    private PrivateKeys() {
    }

    record SigningKey(PrivateKey key, JWSAlgorithm algorithm) {
        @Override
        public String toString() {
            return "SigningKey[" + algorithm + "]";
        }
    }

    static SigningKey read(Path file, String algorithm) {
        byte[] der;
        try {
            String pem = Files.readString(file, StandardCharsets.US_ASCII);
            int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
            int end = pem.indexOf("-----END PRIVATE KEY-----");
            if (begin < 0 || end < begin) {
                throw new OAuthException("privateKeyFile " + file + ": not a PKCS#8 PEM key (expected -----BEGIN PRIVATE "
                        + "KEY-----; convert with openssl pkcs8 -topk8 -nocrypt)");
            }
            String body = pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end).replaceAll("\\s", "");
            der = Base64.getDecoder().decode(body);
        } catch (NoSuchFileException e) {
            throw new OAuthException("privateKeyFile " + file + ": no such file");
        } catch (IOException | IllegalArgumentException e) {
            throw new OAuthException("privateKeyFile " + file + ": cannot be read");
        }
        try {
            PrivateKey key = null;
            for (String type : new String[] {"EC", "RSA"}) {
                try {
                    key = KeyFactory.getInstance(type).generatePrivate(new PKCS8EncodedKeySpec(der));
                    break;
                } catch (GeneralSecurityException e) {
                    // the other type
                }
            }
            if (key == null) {
                throw new OAuthException("privateKeyFile " + file + ": neither an EC nor an RSA key");
            }
            JWSAlgorithm alg = algorithm != null ? JWSAlgorithm.parse(algorithm) : defaultAlgorithm(key);
            boolean ec = key instanceof ECPrivateKey;
            if (ec != JWSAlgorithm.Family.EC.contains(alg)) {
                throw new OAuthException("privateKeyFile " + file + ": an " + (ec ? "EC" : "RSA") + " key cannot sign "
                        + alg.getName());
            }
            return new SigningKey(key, alg);
        } finally {
            Arrays.fill(der, (byte) 0);
        }
    }

    private static JWSAlgorithm defaultAlgorithm(PrivateKey key) {
        if (key instanceof ECPrivateKey ec) {
            return switch (ec.getParams().getCurve().getField().getFieldSize()) {
                case 384 -> JWSAlgorithm.ES384;
                case 521 -> JWSAlgorithm.ES512;
                default -> JWSAlgorithm.ES256;
            };
        }
        return JWSAlgorithm.RS256;
    }
}
