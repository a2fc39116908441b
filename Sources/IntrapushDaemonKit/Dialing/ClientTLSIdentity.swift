// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import NIOSSL

/// Loads `tls_cert_file` and `tls_key_file` with NIOSSL, and says in words what is wrong.
package enum ClientTLSIdentity {
    struct Failure: Error, CustomStringConvertible {
        var problem: ClientIdentityProblem
        var description: String { problem.message }
    }

    /// The chain (leaf first) and the key from the files; throws `Failure` naming the one at fault.
    static func load(_ certificateFile: String, _ keyFile: String) throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        func read(_ file: String, _ culprit: ClientIdentityProblem.Culprit) throws -> [UInt8] {
            switch FileReader.readBytes(atPath: file) {
            case .success(let bytes): return bytes
            case .failure(let error):
                throw Failure(problem: ClientIdentityProblem(culprit, "cannot read \(file): \(error.reason)"))
            }
        }
        return try load(
            certificateFile: certificateFile, certificatePEM: read(certificateFile, .certificate),
            keyFile: keyFile, keyPEM: read(keyFile, .key))
    }

    /// The same from the files' contents, already read; the names are for messages.
    static func load(
        certificateFile: String, certificatePEM: [UInt8], keyFile: String, keyPEM: [UInt8]
    ) throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificatePEM)
        } catch {
            throw Failure(problem: ClientIdentityProblem(.certificate, "no PEM certificate could be read from \(certificateFile)"))
        }
        guard !chain.isEmpty else {
            throw Failure(problem: ClientIdentityProblem(.certificate, "\(certificateFile) holds no PEM certificate"))
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
        } catch {
            throw Failure(problem: ClientIdentityProblem(
                .key, "no PEM private key could be read from \(keyFile) (a key protected by a passphrase must be stored without one)"))
        }
        // BoringSSL refuses a key that does not belong to the leaf certificate.
        var probe = TLSConfiguration.makeClientConfiguration()
        probe.certificateChain = chain.map { .certificate($0) }
        probe.privateKey = .privateKey(key)
        // Only the pair is in question: the system trust store may be missing (a minimal
        // system without ca-certificates), and must not be reported as a key that does not fit.
        probe.trustRoots = .certificates([])
        do {
            _ = try NIOSSLContext(configuration: probe)
        } catch {
            throw Failure(problem: ClientIdentityProblem(.key, "the key in \(keyFile) does not belong to the certificate in \(certificateFile)"))
        }
        return (chain, key)
    }

    /// For `ConfigurationLoader.clientIdentityCheck`: the same load, its problem or nil.
    package static let check: ClientIdentityCheck = { certificate, key in
        do {
            _ = try load(certificateFile: certificate.path, certificatePEM: certificate.pem, keyFile: key.path, keyPEM: key.pem)
            return nil
        } catch let failure as Failure {
            return failure.problem
        } catch {
            return ClientIdentityProblem(.certificate, "\(error)")
        }
    }
}
